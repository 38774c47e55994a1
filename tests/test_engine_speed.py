"""The engine's shortcuts for speed give exactly what the plain code gives.

Log lines are built through an unfrozen twin of `LogEntry` that then takes LogEntry's
class (tracker/engine/model.py): the result must be an ordinary frozen LogEntry.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from tracker.engine import Event, LogEntry
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
