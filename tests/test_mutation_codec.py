"""Direct tests of tracker.persistence.codec: a save written whole and one change appended,
the commit mark `# revision N` that ends each, the bytes after the last mark never read,
the limits on size and depth, the events read a piece at a time exactly as the whole, and
every refusal naming the file and what was expected (the module docstring;
docs/decisions/0007-save-format.md, 0044-save-limits.md, 0045-opening-fast.md;
docs/guide/saves.md "Crashes and hand edits", "Limits")."""

from __future__ import annotations

import gc
import tomllib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from rulesets.freeform import FreeformRuleset
from tracker.engine import CombatantSetup, Encounter, Event, LogEntry, Setup, TrackerError
from tracker.persistence import codec
from tracker.persistence.checks import SaveError
from tracker.persistence.codec import Loaded, Split, chunk, dumps, load_bytes, loads, parse, parse_events, split, state_summary
from tracker.persistence.event_tables import events_text
from tracker.persistence.header import HEADER, SCHEMA_VERSION

ROOT = Path(__file__).resolve().parent.parent


def fight(*names: str, roster: tuple[str, ...] = (), **settings: Any) -> Encounter:
    setup = Setup("Bridge", "freeform", FreeformRuleset.time, FreeformRuleset.down_when, settings,
                  [CombatantSetup(n, {}, {"hp": 12}) for n in roster])
    enc = Encounter(setup)
    for name in names:
        enc.apply(Event("add", {"name": name, "resources": {"hp": 20}}))
    return enc


def note(enc: Encounter, text: str) -> None:
    enc.apply(Event("note", {"text": text}))


def state(loaded: Loaded) -> dict[str, Any]:
    return state_summary(loaded.encounter) | {"log": [e.text for e in loaded.encounter.log]}


# ------------------------------------------------------------------ a whole write
def test_a_whole_save_is_the_header_the_events_and_its_commit_mark() -> None:
    enc = fight("Ann", "Bo")
    text = dumps(enc, 7)
    assert text.startswith(HEADER)
    assert text.endswith("\n# revision 7\n")
    head, events = text.split("\n[[events]]\n", 1)
    doc = tomllib.loads(head)
    assert doc == {"schema_version": SCHEMA_VERSION, "name": "Bridge", "ruleset": "freeform", "settings": {}, "roster": []}
    assert head + "\n" + events_text(enc.events) + "# revision 7\n" == text
    loaded = loads(text, "bridge.toml")
    assert loaded.revision == 7 and loaded.schema == SCHEMA_VERSION and loaded.house_rules == ""
    assert [c.name for c in loaded.encounter.combatants.values()] == ["Ann", "Bo"]
    assert loaded.ruleset.id == "freeform"


def test_a_save_with_no_events_is_the_header_and_its_mark() -> None:
    enc = fight(roster=("Ann",))
    text = dumps(enc, 1, "house.toml")
    assert "\n[[events]]" not in text
    assert text.endswith("\n# revision 1\n") and not text.endswith("\n\n# revision 1\n")
    doc = tomllib.loads(text)
    assert doc["house_rules"] == "house.toml" and doc["roster"] == [{"name": "Ann", "stats": {}, "resources": {"hp": 12}}]
    assert loads(dumps(enc, 1), "s.toml").encounter.combatants["Ann"].resources == {"hp": 12}


def test_a_number_toml_cannot_hold_in_the_header_is_never_written() -> None:
    enc = fight(odds=float("inf"))
    with pytest.raises(SaveError) as refused:
        dumps(enc, 1)
    assert str(refused.value) == "settings/roster.settings.odds: inf cannot be saved (integers must fit 64 bits, numbers must be finite)"


# ------------------------------------------------------------------ one change appended
def test_an_appended_change_is_its_events_what_they_did_and_the_mark() -> None:
    enc = fight("Ann")
    first = len(enc.events)
    note(enc, "the bridge sways")
    data = chunk(enc, first, 2)
    said = [e.text for e in enc.log if e.seq == enc.events[-1].seq]
    assert said, "a note says something"
    assert data == ("\n" + events_text(enc.events[first:]) + "".join(f"#   {line}\n" for line in said) + "# revision 2\n").encode("utf-8")
    whole = dumps(fight("Ann"), 1).encode() + data
    assert loads(whole.decode(), "s.toml").revision == 2
    assert [e.kind for e in loads(whole.decode(), "s.toml").encounter.events] == ["add", "note"]


def test_only_the_changes_own_lines_are_written_under_it_the_last_forty_in_order() -> None:
    enc = fight("Ann")
    note(enc, "before")
    first = len(enc.events)
    for i in range(45):
        note(enc, f"line {i}")
    text = chunk(enc, first, 9).decode()
    comments = [line for line in text.splitlines() if line.startswith("#   ")]
    mine = [e.text for e in enc.log if e.seq > first]
    assert len(mine) >= 45
    assert comments == [f"#   {line}" for line in mine[-40:]]
    assert not any("before" in line for line in comments)


def _said(enc: Encounter, log: list[LogEntry]) -> SimpleNamespace:
    """`enc`'s events with a log of our own (chunk reads the two)."""
    return SimpleNamespace(events=enc.events, log=log)


def test_an_undo_which_says_nothing_is_named_by_the_change_it_takes_back() -> None:
    enc = fight("Ann")
    note(enc, "oops")
    enc.apply(Event("undo", {"target": 2}))
    assert [e.seq for e in enc.log] == [1]  # the engine words no undo: its line is gone
    text = chunk(enc, 2, 3).decode()
    assert text.endswith('\nkind = "undo"\ntarget = 2\n#   undo of change 2\n# revision 3\n')


def test_undo_and_redo_saved_together_are_named_in_their_order() -> None:
    enc = fight("Ann")
    note(enc, "oops")
    enc.apply(Event("undo", {"target": 2}))
    enc.apply(Event("redo", {"target": 2}))
    enc.apply(Event("undo", {"target": 2}))
    text = chunk(_said(enc, list(enc.log)[:1]), 2, 5).decode()
    assert text.endswith("\n#   undo of change 2\n#   redo of change 2\n#   undo of change 2\n# revision 5\n")


def test_a_change_that_says_nothing_writes_no_comment() -> None:
    enc = fight("Ann")
    note(enc, "quiet")
    text = chunk(_said(enc, []), 1, 2).decode()
    assert not [line for line in text.splitlines() if line.startswith("#   ")]
    assert text.endswith("\n# revision 2\n")


def test_a_line_of_an_undo_is_written_in_place_of_its_name() -> None:
    enc = fight("Ann")
    note(enc, "oops")
    enc.apply(Event("undo", {"target": 2}))
    text = chunk(_said(enc, [LogEntry(0, "note", "took back oops", seq=3)]), 2, 3).decode()
    assert text.endswith("\n#   took back oops\n# revision 3\n")


def test_a_secret_line_is_never_written_and_controls_are_made_harmless() -> None:
    enc = fight("Ann")
    first = len(enc.events)
    note(enc, "seen")
    log = [*enc.log, LogEntry(0, "note", "the GM rolls 17", seq=2, secret=True), LogEntry(0, "note", "bell\x07\n# revision 99", seq=2)]
    text = chunk(_said(enc, log), first, 2).decode()
    assert "#   seen\n" in text
    assert "17" not in text
    assert "\x07" not in text and "\n# revision 99" not in text
    assert split(text.encode()).revision == 2
    assert [line for line in text.splitlines() if line.startswith("#")][-1] == "# revision 2"


# ------------------------------------------------------------------ the state as plain data
def test_the_state_summary_holds_the_clock_the_combatants_and_the_actions() -> None:
    enc = fight("Ann", "Bo")
    enc.apply(Event("advance", {"to": 23}))
    summary = state_summary(enc)
    assert summary["segment"] == 23
    assert (summary["round"], summary["segment_in_round"]) == (3, 3)  # ten segments a round
    assert summary["clock"] == "segment 23 · round 3, segment 3"
    assert summary["combatants"][0] == {"name": "Ann", "state": enc.combatants["Ann"].state(23), "resources": {"hp": 20}}
    assert [c["name"] for c in summary["combatants"]] == ["Ann", "Bo"]
    assert summary["in_progress"] == []


def test_the_summary_marks_hidden_combatants_conditions_and_actions_in_progress() -> None:
    from tests.helpers import declare

    enc = fight("Ann")
    enc.apply(Event("add", {"name": "Lurker", "resources": {"hp": 5}, "hidden": True}))
    declare(enc, "Ann", "swing", 4)
    enc.combatants["Ann"].conditions["prone"] = 2
    summary = state_summary(enc)
    ann, lurker = summary["combatants"]
    assert lurker["hidden"] is True and "hidden" not in ann
    assert ann["conditions"] == {"prone": 2} and "conditions" not in lurker
    assert summary["in_progress"] == [{"actor": "Ann", "template": "swing", "mode": "active", "start": 0, "completes": 4}]


# ------------------------------------------------------------------ the commit mark
def test_bytes_after_the_last_mark_are_a_torn_write() -> None:
    data = b"a = 1\n# revision 3\nb = 2\n# revision 4\n[[events]]\nseq = "
    cut = split(data)
    assert cut == Split(b"a = 1\n# revision 3\nb = 2\n# revision 4\n", 4, len(b"[[events]]\nseq = "), b"# revision 4\n")


def test_no_mark_at_all_is_a_first_format_file() -> None:
    assert split(b"schema_version = 1\n") == Split(b"schema_version = 1\n", None, 0)
    assert split(b"") == Split(b"", None, 0)


def test_only_a_whole_line_is_a_mark() -> None:
    assert split(b"# revision 5\n").revision == 5  # at the very start
    assert split(b"x = 1\n# revision 5\nx# revision 6\n") == Split(b"x = 1\n# revision 5\n", 5, len(b"x# revision 6\n"), b"# revision 5\n")
    assert split(b"# revision 5\n#   # revision 6\n").revision == 5  # an indented comment is none
    assert split(b"# revision 5\n# revision 6 and more\n").revision == 5
    assert split(b"# revision 5\n# revision x\n").revision == 5
    assert split(b"# revision 5\n# revision 66\t \n") == Split(b"# revision 5\n# revision 66\t \n", 66, 0, b"# revision 66\t \n")


def test_crlf_marks_count_and_a_lone_cr_at_the_end_is_half_a_line_end() -> None:
    crlf = split(b"a = 1\r\n# revision 2\r\n")
    assert crlf == Split(b"a = 1\r\n# revision 2\r\n", 2, 0, b"# revision 2\r\n")
    lone = split(b"# revision 1\n# revision 2\r")
    assert lone == Split(b"# revision 1\n# revision 2", 2, 1, b"# revision 2")


def test_a_last_line_without_its_newline_counts_only_above_the_mark_before() -> None:
    assert split(b"# revision 11\nx = 1\n# revision 12") == Split(b"# revision 11\nx = 1\n# revision 12", 12, 0, b"# revision 12")
    torn = split(b"# revision 11\nx = 1\n# revision 1")  # an append cut inside `# revision 12`
    assert torn == Split(b"# revision 11\n", 11, len(b"x = 1\n# revision 1"), b"# revision 11\n")
    assert split(b"# revision 11\nx = 1\n# revision 11").revision == 11
    assert split(b"# revision 11\nx = 1\n# revision 11").torn == len(b"x = 1\n# revision 11")
    assert split(b"x = 1\n# revision 1").revision == 1  # nothing before: it counts
    assert split(b"x = 1\n# revision 1", after=1).revision is None  # what a follower holds already
    assert split(b"x = 1\n# revision 1", after=1) == Split(b"x = 1\n# revision 1", None, 0)
    assert split(b"x = 1\n# revision 2", after=1).revision == 2
    assert split(b"# revision 5\nx = 1\n# revision 6", after=9).revision == 6  # the mark before decides


# ------------------------------------------------------------------ limits
def test_a_save_over_the_size_limit_is_refused_by_its_size(monkeypatch: pytest.MonkeyPatch) -> None:
    assert codec.MAX_SAVE_BYTES == 24 * 1024 * 1024
    monkeypatch.setattr(codec, "MAX_SAVE_BYTES", 2 * 1024 * 1024)
    text = "#" * (2 * 1024 * 1024)
    assert parse(text, "big.toml") == {}  # exactly the limit is read
    with pytest.raises(SaveError) as refused:
        parse(text + "#", "big.toml")
    assert str(refused.value) == f"big.toml: {2 * 1024 * 1024 + 1} characters; saves over 2 MB are refused"
    assert codec.read_in_pieces("[[events]]\n" + text, "big.toml", None) is None


def test_values_nested_past_the_depth_limit_are_refused() -> None:
    assert codec.MAX_DEPTH == 64

    def nested(depth: int, inner: Any = 1) -> Any:
        for _ in range(depth):
            inner = [inner]
        return inner

    assert not codec._too_deep(nested(64))
    assert codec._too_deep(nested(65))
    table: Any = 1
    for _ in range(65):
        table = {"a": table}
    assert codec._too_deep(table)
    assert not codec._too_deep(table["a"])
    assert codec._too_deep({"x": 1, "y": [1, 2, nested(63)]})  # the table and `y` are two levels
    assert not codec._too_deep({"x": 1, "y": [1, 2, nested(62)]})


def test_deep_nesting_refused_by_either_reader_names_the_limit() -> None:
    deep = "x = " + "[" * 100 + "]" * 100 + "\n"  # past the compiled reader's ~80: tomllib reads it
    with pytest.raises(SaveError) as refused:
        parse(deep, "deep.toml")
    assert str(refused.value) == "deep.toml: not a save: values nested deeper than 64 levels"
    # What the compiled reader reads stays within its own limit and is not walked again
    # (opening fast: decision 0045); only tomllib's answers are held to MAX_DEPTH.
    read = "x = " + "[" * 70 + "]" * 70 + "\n"
    assert parse(read, "deep.toml")["x"]
    very = "x = " + "[" * 5000 + "]" * 5000 + "\n"
    with pytest.raises(SaveError) as refused:
        parse(very, "very.toml")
    assert str(refused.value) == "very.toml: not a save: values nested deeper than 64 levels"


def test_a_file_that_is_not_toml_is_refused_naming_the_file_and_the_place() -> None:
    with pytest.raises(SaveError) as refused:
        parse("name = \n", "bad.toml")
    assert str(refused.value).startswith("bad.toml: not valid TOML: ")
    assert "line 1" in str(refused.value)


def test_a_file_that_is_not_utf8_names_the_byte() -> None:
    with pytest.raises(SaveError) as refused:
        load_bytes(Split(b"name = '\xff'", None, 0), "bad.toml")
    assert str(refused.value) == "bad.toml: not UTF-8 text (byte 8)"


# ------------------------------------------------------------------ reading
def test_an_appended_stretch_is_its_event_tables_or_none() -> None:
    assert parse_events('\n[[events]]\nseq = 3\nkind = "note"\ntext = "x"\n', "s") == [{"seq": 3, "kind": "note", "text": "x"}]
    assert parse_events("name = 'x'\n[[events]]\nseq = 3\n", "s") is None  # anything else
    assert parse_events("events = 3\n", "s") is None
    assert parse_events("events = [1]\n", "s") is None
    assert parse_events("events = [{seq = 3}]\n", "s") is None  # not as tables of their own
    assert parse_events("[events]\nseq = 3\n", "s") is None
    assert parse_events("", "s") is None


def test_a_schema_2_save_without_a_mark_was_never_completely_written() -> None:
    text = dumps(fight("Ann"), 1).replace("# revision 1\n", "")
    with pytest.raises(SaveError) as refused:
        loads(text, "half.toml")
    assert str(refused.value) == "half.toml: no '# revision N' line: the file was never completely written"


def test_a_first_format_save_takes_its_revision_from_its_header() -> None:
    loaded = loads((ROOT / "saves" / "freeform-bridge-ambush.toml").read_text(), "bridge.toml")
    assert loaded.schema == 1 and loaded.revision == 16
    assert loaded.encounter.setup.name == "Ambush at the rope bridge"


def test_reading_in_pieces_gives_exactly_the_whole_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    enc = fight("Ann", "Bo")
    for i in range(30):
        note(enc, f"round {i}")
    text = dumps(enc, 32)
    whole = codec.from_document(parse(text, "f.toml"), "f.toml")
    monkeypatch.setattr(codec, "PIECE_CHARS", 200)  # many pieces
    pieces = codec.read_in_pieces(text, "f.toml", None)
    assert pieces is not None
    opening, events = pieces
    assert opening.setup.name == "Bridge" and opening.revision == 0
    assert [(e.seq, e.kind, e.args) for e in events] == [(e.seq, e.kind, e.args) for e in whole.encounter.events]
    assert len(events) == 32
    loaded = loads(text, "f.toml")
    assert state(loaded) == state(whole)
    monkeypatch.setattr(codec, "PIECE_CHARS", 1 << 30)  # one piece
    assert [e.seq for e in codec.read_in_pieces(text, "f.toml", None)[1]] == list(range(1, 33))


def test_what_the_pieces_might_not_read_as_the_whole_is_read_whole() -> None:
    enc = fight("Ann")
    text = dumps(enc, 1)
    assert codec.read_in_pieces(text.split("\n[[events]]\n")[0], "f.toml", None) is None  # no events
    assert codec.read_in_pieces("events = []\n" + text[text.index("\n[[events]]\n"):], "f.toml", None) is None
    assert codec.read_in_pieces(text + "\nname = 'again'\n", "f.toml", None) is None  # more than events
    assert codec.read_in_pieces(text.replace('kind = "add"', 'kind = "nothing"'), "f.toml", None) is None
    assert codec.read_in_pieces(text + "[state]\nsegment = 0\n", "f.toml", None) is not None  # the old summary closes the last piece
    head, rest = text.split("\n[[events]]", 1)
    with_state = head + "\n[state]\nsegment = 0\n\n[[events]]" + rest
    assert codec.read_in_pieces(with_state, "f.toml", None) is not None  # in the header: fine
    assert codec.read_in_pieces(with_state + "[state]\nsegment = 0\n", "f.toml", None) is None  # twice


def test_a_state_table_between_events_is_read_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    enc = fight("Ann", "Bo", "Cy")
    text = dumps(enc, 3)
    second = text.index("\n[[events]]\n", text.index("\n[[events]]\n") + 1) + 1
    odd = text[:second] + "[state]\nsegment = 0\n\n" + text[second:]
    monkeypatch.setattr(codec, "PIECE_CHARS", 10)
    assert codec.read_in_pieces(odd, "f.toml", None) is None


@pytest.mark.parametrize("line", ["[[events]] \r", "[[events]]\t"])
def test_an_events_line_may_end_in_spaces_or_a_cr(line: str) -> None:
    assert codec.EVENTS_LINE.search(f"x = 1\n{line}\nseq = 1\n") is not None
    assert codec.EVENTS_LINE.search("x = 1\n [[events]]\n") is None


def test_a_shipped_schema_1_save_reads_in_pieces_as_whole() -> None:
    text = (ROOT / "saves" / "seraph-vs-sphinx.toml").read_text()
    pieces = codec.read_in_pieces(text, "s.toml", ROOT / "saves")
    whole = codec.from_document(parse(text, "s.toml"), "s.toml", ROOT / "saves")
    assert pieces is not None
    assert [(e.seq, e.kind, e.args) for e in pieces[1]] == [(e.seq, e.kind, e.args) for e in whole.encounter.events]


# ------------------------------------------------------------------ refusals while reading
def test_events_that_are_not_tables_are_refused_by_name() -> None:
    text = dumps(fight(), 1).replace("schema_version = 2\n", "schema_version = 2\nevents = 3\n")
    with pytest.raises(SaveError) as refused:
        loads(text, "f.toml")
    assert str(refused.value) == "f.toml: events: expected an array of tables [[events]], got 3"


def test_an_event_that_does_not_replay_is_named_by_number_seq_and_kind() -> None:
    enc = fight("Ann")
    note(enc, "x")
    text = dumps(enc, 2).replace('target = "Ann"', 'target = "Nobody"')
    text += '\n[[events]]\nseq = 3\nkind = "damage"\ntarget = "Nobody"\namount = 2\nresource = "hp"\n# revision 3\n'
    with pytest.raises(SaveError) as refused:
        loads(text, "f.toml")
    assert str(refused.value).startswith("f.toml: events[2] (seq 3, damage) does not replay: ")
    assert "Nobody" in str(refused.value)


def test_a_roster_the_engine_refuses_is_named_as_the_roster() -> None:
    enc = fight(roster=("Ann", "Bo"))
    text = dumps(enc, 1).replace('name = "Bo"', 'name = "Ann"')
    with pytest.raises(SaveError) as refused:
        loads(text, "f.toml")
    assert str(refused.value).startswith("f.toml: roster: ")


class _Replaying:
    """An encounter that takes `takes` events, then refuses the next with `error`."""

    def __init__(self, held: int, takes: int, error: Exception) -> None:
        self.events: list[Any] = [None] * held
        self.takes, self.error = takes, error

    def replay(self, events: list[Event]) -> None:
        self.events.extend(events[: self.takes])
        raise self.error


def test_a_follower_holding_events_names_the_refused_one_by_its_place_in_the_file() -> None:
    events = [Event("note", {"text": "a"}, 4), Event("advance", {"to": 3}, 5)]
    with pytest.raises(SaveError) as refused:
        codec.replay(_Replaying(3, 1, TrackerError("no time")), events, "f.toml")  # type: ignore[arg-type]
    assert str(refused.value) == "f.toml: events[4] (seq 5, advance) does not replay: no time"
    with pytest.raises(SaveError) as first:
        codec.replay(_Replaying(3, 0, TrackerError("no")), events, "f.toml")  # type: ignore[arg-type]
    assert str(first.value) == "f.toml: events[3] (seq 4, note) does not replay: no"
    with pytest.raises(SaveError) as past:
        codec.replay(_Replaying(3, 2, TrackerError("after")), events, "f.toml")  # type: ignore[arg-type]
    assert str(past.value) == "f.toml: events[5] (seq 6, ?) does not replay: after"


@pytest.mark.parametrize("error", [TypeError("t"), ValueError("v"), KeyError("k"), AttributeError("a"), OverflowError("o"), RecursionError("r")])
def test_an_event_that_breaks_the_engine_is_named_never_a_traceback(error: Exception) -> None:
    events = [Event("note", {"text": "a"}, 1)]
    with pytest.raises(SaveError) as refused:
        codec.replay(_Replaying(0, 0, error), events, "f.toml")  # type: ignore[arg-type]
    assert str(refused.value) == f"f.toml: events[0] (seq 1) does not replay: {type(error).__name__}: {error}"


# ------------------------------------------------------------------ the collector while opening
@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_paused_while_a_save_is_replayed_and_left_as_found(monkeypatch: pytest.MonkeyPatch, enabled: bool) -> None:
    text = dumps(fight("Ann"), 1)
    seen: list[bool] = []
    real = codec.replay

    def watching(*args: Any) -> None:
        seen.append(gc.isenabled())
        real(*args)

    monkeypatch.setattr(codec, "replay", watching)
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        loads(text, "f.toml")
        assert gc.isenabled() is enabled
        assert seen == [False]
        with pytest.raises(SaveError):
            loads(text.replace("# revision 1\n", ""), "f.toml")
        assert gc.isenabled() is enabled
        with pytest.raises(SaveError):
            loads(text.replace('kind = "add"', 'kind = "nothing"'), "f.toml")
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()


def test_an_opened_long_fight_is_settled_out_of_the_collectors_walks(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    monkeypatch.setattr(Encounter, "settle", lambda self: calls.append(len(self.events)))
    loads(dumps(fight("Ann", "Bo"), 2), "f.toml")
    assert calls == [2]


# ------------------------------------------------------------------ added for survivors
def test_a_whole_mark_line_counts_whatever_its_number() -> None:
    # Only a last line that lost its newline is held to the mark before (saves.md).
    assert split(b"# revision 5\nx = 1\n# revision 3\n") == Split(b"# revision 5\nx = 1\n# revision 3\n", 3, 0, b"# revision 3\n")
    assert split(b"x = 1\n# revision 2\n", after=7).revision == 2


def test_a_save_with_no_name_given_is_called_save_in_messages() -> None:
    with pytest.raises(SaveError) as refused:
        loads("name = \n")
    assert str(refused.value).startswith("<save>: not valid TOML: ")


def test_every_refusal_while_reading_names_the_file() -> None:
    with pytest.raises(SaveError) as bad_toml:
        loads("name = \n", "bad.toml")
    assert str(bad_toml.value).startswith("bad.toml: not valid TOML: ")
    with pytest.raises(SaveError) as appended:
        parse_events("[[events]\n", "tail.toml")
    assert str(appended.value).startswith("tail.toml: not valid TOML: ")
    text = dumps(fight("Ann"), 1)
    with pytest.raises(SaveError) as header:
        loads(text.replace("schema_version = 2", "schema_version = 3"), "new.toml")
    assert str(header.value).startswith("new.toml: schema_version: expected 1 or 2, got 3")
    with pytest.raises(SaveError) as event:
        loads(text.replace('kind = "add"', 'kind = "nothing"'), "ev.toml")
    assert str(event.value) == "ev.toml: events[0].kind: expected an event kind, got 'nothing'"


def test_events_in_the_header_and_in_tables_are_not_valid_toml() -> None:
    text = dumps(fight("Ann"), 1).replace("schema_version = 2\n", "schema_version = 2\nevents = []\n")
    assert codec.read_in_pieces(text, "f.toml", None) is None
    with pytest.raises(SaveError) as refused:
        loads(text, "f.toml")
    assert str(refused.value).startswith("f.toml: not valid TOML: ")


def _with_house_rules(folder: Path, events: bool) -> str:
    (folder / "house.toml").write_text("")
    enc = fight("Ann") if events else fight(roster=("Ann",))
    return dumps(enc, 1, "house.toml")


@pytest.mark.parametrize("events", [True, False])
def test_house_rules_are_read_beside_the_save_however_it_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, events: bool) -> None:
    text = _with_house_rules(tmp_path, events)
    monkeypatch.chdir(tmp_path.parent)  # the save's folder is not where we stand
    loaded = loads(text, "s.toml", tmp_path)
    assert loaded.house_rules == "house.toml" and "Ann" in loaded.encounter.combatants
    assert (codec.read_in_pieces(text, "s.toml", tmp_path) is not None) is events


def test_a_plain_save_is_read_in_pieces_never_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = _with_house_rules(tmp_path, True)
    monkeypatch.chdir(tmp_path.parent)

    def whole(*args: Any) -> Loaded:
        raise AssertionError("read whole")

    monkeypatch.setattr(codec, "from_document", whole)
    assert loads(text, "s.toml", tmp_path).encounter.combatants["Ann"].resources == {"hp": 20}


def test_the_events_are_parsed_a_piece_at_a_time_each_cut_at_an_events_line(monkeypatch: pytest.MonkeyPatch) -> None:
    enc = fight("Ann", "Bo")
    for i in range(30):
        note(enc, f"round {i}")
    text = dumps(enc, 32)
    parsed: list[str] = []
    real = codec.parse

    def recording(piece: str, source: str) -> dict[str, Any]:
        parsed.append(piece)
        return real(piece, source)

    monkeypatch.setattr(codec, "parse", recording)
    monkeypatch.setattr(codec, "PIECE_CHARS", 500)
    assert codec.read_in_pieces(text, "f.toml", None) is not None
    header, *pieces = parsed
    assert "[[events]]\n" not in header.replace("as [[events]] tables", "")
    assert len(pieces) > 3
    assert all(p.startswith("[[events]]\n") for p in pieces)
    assert all(500 <= len(p) < 1000 for p in pieces[:-1])
    assert header + "".join(pieces) == text


def test_a_save_of_exactly_the_size_limit_is_read_in_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    text = dumps(fight("Ann"), 1)
    monkeypatch.setattr(codec, "MAX_SAVE_BYTES", len(text))
    assert codec.read_in_pieces(text, "f.toml", None) is not None
    assert codec.read_in_pieces(text + "\n", "f.toml", None) is None
