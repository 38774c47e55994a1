"""The engine's shortcuts for speed give exactly what the plain code gives.

Log lines are built through an unfrozen twin of `LogEntry` that then takes LogEntry's
class (tracker/engine/model.py): the result must be an ordinary frozen LogEntry. A
`Resolution`'s __init__ fills its slots through their descriptors (tracker/engine/effects.py):
the result must be the one the dataclass's generated __init__ builds.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from tracker.engine import Damage, Event, LogEntry, Resolution
from tracker.engine.effects import _dataclass_init
from tracker.engine.model import _LogEntryDraft, log_entry
from tests.helpers import declare, encounter, next_


def test_a_log_entry_built_fast_is_an_ordinary_frozen_log_entry() -> None:
    fast = log_entry(12, "declare", "Ann initiates active hit", ("Ann", "Bo"), 7, False, True, False)
    plain = LogEntry(12, "declare", "Ann initiates active hit", ("Ann", "Bo"), 7, False, True, False)
    assert type(fast) is LogEntry
    assert fast == plain and hash(fast) == hash(plain) and repr(fast) == repr(plain)
    assert fast != dataclasses.replace(plain, text="other")
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.text = "changed"  # type: ignore[misc]
    assert dataclasses.replace(fast, about=("Cy",)).about == ("Cy",)
    assert pickle.loads(pickle.dumps(fast)) == plain and copy.deepcopy(fast) == plain
    assert dataclasses.asdict(fast) == dataclasses.asdict(plain)


def test_the_twin_has_log_entrys_fields_in_order() -> None:
    assert [(f.name, f.default) for f in dataclasses.fields(_LogEntryDraft)] == [(f.name, f.default) for f in dataclasses.fields(LogEntry)]
    assert _LogEntryDraft.__slots__ == LogEntry.__slots__


def test_the_encounter_writes_ordinary_log_entries() -> None:
    enc = encounter("Ann", "Bo")
    enc.apply(Event("hide", {"target": "Bo"}))
    declare(enc, "Ann", "hit", 2, targets=("Bo",))
    next_(enc)
    assert all(type(e) is LogEntry for e in enc.log)
    line = enc.log[-1]
    assert line == LogEntry(2, "complete", "Ann's hit completes", ("Ann", "Bo"), 5, False, True, False)


def _generated(*args: object, **kwargs: object) -> Resolution:
    """A Resolution built by the dataclass's own generated __init__."""
    made = object.__new__(Resolution)
    _dataclass_init(made, *args, **kwargs)
    return made


@pytest.mark.parametrize("args, kwargs", [
    ((5,), {}),
    ((5, True, 3, (1, 2), "rolled 3", (Damage("Bo", 2, "hp"),), (4, 1), {"judge": "x"}), {}),
    ((7,), {"summary": "stated", "success": False, "details": {"k": [1, 2]}}),
    ((), {"pt": 2, "margin": "3x7", "order": (9,)}),
])
def test_a_resolution_built_fast_is_the_one_the_dataclass_builds(args: tuple[object, ...], kwargs: dict[str, object]) -> None:
    fast, plain = Resolution(*args, **kwargs), _generated(*args, **kwargs)  # type: ignore[arg-type]
    assert type(fast) is Resolution
    assert fast == plain and hash(fast.dice) == hash(plain.dice) and repr(fast) == repr(plain)
    assert [getattr(fast, f.name) for f in dataclasses.fields(Resolution)] == [getattr(plain, f.name) for f in dataclasses.fields(Resolution)]
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.pt = 9  # type: ignore[misc]
    assert dataclasses.replace(fast, pt=11) == dataclasses.replace(plain, pt=11)
    assert pickle.loads(pickle.dumps(fast)) == plain and copy.deepcopy(fast) == plain
    assert Resolution.from_dict(fast.to_dict()) == plain


def test_each_resolution_gets_details_of_its_own() -> None:
    a, b = Resolution(1), Resolution(2)
    a.details["mark"] = 1
    assert b.details == {} and a.details is not b.details
    assert Resolution(3, details=None).details == {}  # as the generated default: a new table
