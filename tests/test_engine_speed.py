"""The engine's shortcuts for speed give exactly what the plain code gives.

The lines every action writes are kept as a template and its values and worded when read
(tracker/engine/log.py): read, they are the text written in full. A checkpoint's row of a
combatant is written out from the field list (tracker/engine/checkpoints.py): every field
in order, its containers copied.

Log lines are built through an unfrozen twin of `LogEntry` that then takes LogEntry's
class (tracker/engine/model.py): the result must be an ordinary frozen LogEntry. A
`Resolution(...)` fills an unfrozen twin and gives it Resolution's class
(tracker/engine/effects.py): the result must be the one the dataclass's generated __init__
builds.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from tracker.engine import Damage, Encounter, Event, LogEntry, Resolution
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


def test_a_resolution_is_built_from_a_twin_of_its_own_layout_and_is_final() -> None:
    from tracker.engine.effects import _ResolutionDraft
    assert _ResolutionDraft.__slots__ == Resolution.__slots__ == tuple(f.name for f in dataclasses.fields(Resolution))
    with pytest.raises(TypeError, match="final"):
        type("Mine", (Resolution,), {})


def test_each_resolution_gets_details_of_its_own() -> None:
    a, b = Resolution(1), Resolution(2)
    a.details["mark"] = 1
    assert b.details == {} and a.details is not b.details
    assert Resolution(3, details=None).details == {}  # as the generated default: a new table


# Log lines worded when read (tracker/engine/log.py): the lines every action writes are
# kept as a template and its values; reading one gives the text written in full.

def test_a_declaration_and_its_completion_read_as_written_in_full() -> None:
    enc = encounter("Ann", "Bo")
    enc.apply(Event("declare", {"actor": "Ann", "template": "hit", "targets": ["Bo"], "resolution": Resolution(3, True, summary="2d6: 4 + 5 = 9")}))
    declare(enc, "Bo", "dodge", 2, mode="passive")
    next_(enc)
    next_(enc)
    texts = [e.text for e in enc.log if e.kind in ("declare", "complete")]
    assert texts == [
        "Ann initiates active hit at Bo, PT 3, completes on segment 3: 2d6: 4 + 5 = 9",
        "Bo initiates passive dodge, PT 2, completes on segment 2",
        "Bo's dodge completes",
        "Ann's hit completes: success",
    ]
    line = enc.log[-1]
    assert line == LogEntry(3, "complete", "Ann's hit completes: success", ("Ann", "Bo"), 6, False, False, False)  # the second advance: change 6
    assert enc.log[-1] is line and list(enc.log)[-1] is line  # read twice: the same entry
    assert enc.log[-2:][1] is line


def test_a_secret_roll_and_a_maintained_link_read_as_written_in_full() -> None:
    enc = encounter("Ann", "Bo")
    enc.apply(Event("declare", {"actor": "Ann", "template": "hit", "targets": ["Bo"], "secret": True, "maintainable": True,
                                "resolution": Resolution(1, True, summary="rolled 9")}))
    next_(enc)
    enc.apply(Event("maintain", {"actor": "Ann", "resolution": Resolution(2)}))
    texts = [e.text for e in enc.log]
    assert "Ann initiates active hit at Bo, PT 1, completes on segment 1 (rolled in secret)" in texts
    assert "secret roll for Ann's hit: rolled 9" in texts
    assert "Ann's hit completes" in texts  # a secret roll's outcome is not told
    assert texts[-1] == "Ann maintains hit (link 1) at Bo, PT 2, completes on segment 3 (rolled in secret)"


def test_a_rename_gives_a_new_log_and_leaves_the_old_one_as_it_was() -> None:
    enc = encounter("Ann", "Bo")
    declare(enc, "Ann", "hit", 1, targets=("Bo",))
    before = enc.log
    enc.apply(Event("rename", {"target": "Bo", "name": "Cy"}))
    assert enc.log is not before
    assert before[-1].about == ("Ann", "Bo")
    assert [e.about for e in enc.log][-2:] == [("Ann", "Cy"), ("Cy",)]
    assert enc.log[-2].text == "Ann initiates active hit at Bo, PT 1, completes on segment 1"  # as written


def test_a_line_about_one_combatant_reads_as_one_about_that_combatant() -> None:
    """Lines about one combatant keep the name, not a tuple of it (tracker/engine/log.py):
    read, every line is about a tuple of names, hidden or renamed as any other."""

    def fight() -> Encounter:
        enc = encounter("Ann", "Bo")
        enc.apply(Event("hide", {"target": "Bo"}))
        declare(enc, "Ann", "guard", 1, mode="passive")
        declare(enc, "Bo", "lurk", 1, mode="passive")
        next_(enc)
        return enc

    lines = [e for e in fight().log if e.kind in ("declare", "complete")]
    assert [(e.text, e.about, e.while_hidden) for e in lines] == [
        ("Ann initiates passive guard, PT 1, completes on segment 1", ("Ann",), False),
        ("Bo initiates passive lurk, PT 1, completes on segment 1", ("Bo",), True),
        ("Ann's guard completes", ("Ann",), False),
        ("Bo's lurk completes", ("Bo",), True),
    ]
    assert all(type(e.about) is tuple for e in lines)
    enc = fight()  # renamed before any line is read
    enc.apply(Event("rename", {"target": "Bo", "name": "Cy"}))
    renamed = [e for e in enc.log if e.kind in ("declare", "complete")]
    assert [e.about for e in renamed] == [("Ann",), ("Cy",), ("Ann",), ("Cy",)]
    assert [e.text for e in renamed] == [e.text for e in lines]  # the text as written


def test_a_checkpoints_row_is_every_field_in_order_with_its_containers_copied() -> None:
    from tracker.engine.checkpoints import _combatant_row
    enc = encounter("Ann", "Bo")
    declare(enc, "Ann", "hit", 2, targets=("Bo",))
    ann = enc.combatants["Ann"]
    row = _combatant_row(ann)
    fields = dataclasses.fields(ann)
    assert row == tuple(tuple(v) if isinstance(v, list) else v for v in (getattr(ann, f.name) for f in fields))
    for f, value in zip(fields, row):
        if isinstance(getattr(ann, f.name), dict):
            assert value is not getattr(ann, f.name)  # a copy: the live one changes in place
