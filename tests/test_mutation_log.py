"""The combat log: lines kept as parts, worded when read (tracker/engine/log.py).

Expected values come from the module docstring (a stored line is the eight fields of
`LogEntry` in order; a worded-when-read line has its template for text and its values
after the eight, and `about` one name is that name; a line read twice is the same
object; a rename makes a new log whose lines about the old name are about the new one,
text kept as written) and decisions 0057 and 0063.
"""

from __future__ import annotations

import pytest

from tracker.engine import Event, Resolution
from tracker.engine.log import Log, entry_of
from tracker.engine.model import LogEntry
from tests.helpers import encounter as make

PLAIN = (3, "note", "the bell rings", ("Ann", "Bo"), 7, True, False, True)
WORDED = (4, "declare", "{} swings at {} ({})", "Ann", 8, False, True, False, "Ann", "Bo", "pt 5")


def test_a_plain_line_is_its_eight_fields() -> None:
    entry = entry_of(PLAIN)
    assert entry == LogEntry(3, "note", "the bell rings", ("Ann", "Bo"), 7, True, False, True)
    assert type(entry) is LogEntry


def test_a_worded_line_fills_its_template_and_makes_one_name_a_tuple() -> None:
    entry = entry_of(WORDED)
    assert entry == LogEntry(4, "declare", "Ann swings at Bo (pt 5)", ("Ann",), 8, False, True, False)
    several = entry_of((4, "declare", "{}!", ("Ann", "Bo"), 8, False, False, True, "go"))
    assert several == LogEntry(4, "declare", "go!", ("Ann", "Bo"), 8, False, False, True)


def test_an_entry_is_its_own_entry() -> None:
    entry = LogEntry(1, "note", "x")
    assert entry_of(entry) is entry  # type: ignore[arg-type]


def test_a_line_read_twice_is_the_same_object_and_kept_worded() -> None:
    log = Log([PLAIN, WORDED])
    first = log[1]
    assert log[1] is first
    assert log[-1] is first
    assert log[0].text == "the bell rings"
    assert list(log) == [log[0], first]
    assert list(iter(log))[1] is first


def test_a_log_is_a_sequence_of_entries() -> None:
    log = Log()
    assert len(log) == 0 and list(log) == [] and list(reversed(log)) == []
    log.write(PLAIN)
    log.write(WORDED)
    log.append(LogEntry(5, "note", "c"))
    assert len(log) == 3
    assert [e.text for e in log] == ["the bell rings", "Ann swings at Bo (pt 5)", "c"]
    assert [e.text for e in reversed(log)] == ["c", "Ann swings at Bo (pt 5)", "the bell rings"]
    assert [e.text for e in log[1:]] == ["Ann swings at Bo (pt 5)", "c"]
    assert isinstance(log[1:], Log)
    assert [e.text for e in log[::-1]] == ["c", "Ann swings at Bo (pt 5)", "the bell rings"]
    assert [e.text for e in log[:-1]] == ["the bell rings", "Ann swings at Bo (pt 5)"]
    assert log[0:1][0] is log[0]
    assert log.index(log[2]) == 2 and log[2] in log
    log[0] = LogEntry(0, "note", "a")
    assert log[0] == LogEntry(0, "note", "a")
    with pytest.raises(IndexError):
        log[3]


def test_a_log_iterates_past_lines_written_while_reading() -> None:
    log = Log([PLAIN])
    seen = []
    for entry in log:
        seen.append(entry.text)
        if len(log) < 3:
            log.write(WORDED)
    assert seen == ["the bell rings", "Ann swings at Bo (pt 5)", "Ann swings at Bo (pt 5)"]


def test_logs_compare_by_their_entries() -> None:
    a, b = Log([PLAIN, WORDED]), Log([entry_of(PLAIN), entry_of(WORDED)])
    assert a == b and not a != b
    assert a == [entry_of(PLAIN), entry_of(WORDED)]
    assert a != [entry_of(PLAIN)]
    assert a != Log([PLAIN])
    assert a != Log([PLAIN, PLAIN])
    assert Log() == Log() and Log() == []
    assert (a == (entry_of(PLAIN), entry_of(WORDED))) is False
    assert a.__eq__(3) is NotImplemented
    with pytest.raises(TypeError):
        hash(a)
    assert repr(Log([PLAIN])) == f"Log([{entry_of(PLAIN)!r}])"


def test_pop_gives_the_last_line_worded_and_truncate_drops_from_a_length() -> None:
    log = Log([PLAIN, WORDED, PLAIN])
    assert log.pop() == entry_of(PLAIN)
    assert log.pop() == LogEntry(4, "declare", "Ann swings at Bo (pt 5)", ("Ann",), 8, False, True, False)
    assert len(log) == 1
    log = Log([PLAIN, WORDED, PLAIN, WORDED])
    log.truncate(2)
    assert len(log) == 2 and log[1].text == "Ann swings at Bo (pt 5)"
    log.truncate(5)
    assert len(log) == 2


def test_a_copy_has_its_own_lines_and_shares_those_read() -> None:
    log = Log([PLAIN, WORDED])
    read = log[0]
    other = log.copy()
    assert other[0] is read
    other.write(PLAIN)
    assert len(log) == 2 and len(other) == 3
    assert other[1] == log[1]


def test_a_renamed_log_is_new_and_about_the_new_name_with_the_text_kept() -> None:
    log = Log([PLAIN, WORDED, (1, "note", "Cy waits", ("Cy",), 2, False, False, False)])
    log[0]  # one line read already, as an entry
    swap = {"Ann": "Ada"}.get
    renamed = log.renamed("Ann", lambda n: swap(n) or n)
    assert renamed is not log
    assert [e.about for e in renamed] == [("Ada", "Bo"), ("Ada",), ("Cy",)]
    assert [e.text for e in renamed] == ["the bell rings", "Ann swings at Bo (pt 5)", "Cy waits"]
    assert renamed[0] == LogEntry(3, "note", "the bell rings", ("Ada", "Bo"), 7, True, False, True)
    assert renamed[1] == LogEntry(4, "declare", "Ann swings at Bo (pt 5)", ("Ada",), 8, False, True, False)
    # the old log is as it was
    assert [e.about for e in log] == [("Ann", "Bo"), ("Ann",), ("Cy",)]


def test_a_renamed_log_leaves_lines_about_others_untouched() -> None:
    line = (1, "note", "Cy waits", "Cy", 2, False, False, False, "x")
    log = Log([line])
    renamed = log.renamed("Ann", lambda n: "Ada" if n == "Ann" else n)
    assert renamed._lines[0] is line
    # a name only part of another is not the combatant
    log = Log([(1, "note", "x", ("Annabel",), 2, False, False, False)])
    assert log.renamed("Ann", lambda n: "Ada" if n == "Ann" else n)[0].about == ("Annabel",)


def test_a_fights_log_is_worded_when_read_and_follows_a_rename() -> None:
    enc = make("Ann", "Bo")
    enc.apply(Event("declare", {"actor": "Ann", "template": "hit", "mode": "active", "targets": ["Bo"],
                                "resolution": Resolution(pt=3)}))
    line = enc.log[2]
    assert line.about == ("Ann", "Bo") and line.kind == "declare" and "Ann" in line.text
    enc.apply(Event("rename", {"target": "Bo", "name": "Bea"}))
    assert enc.log[2].about == ("Ann", "Bea")
    assert enc.log[2].text == line.text
