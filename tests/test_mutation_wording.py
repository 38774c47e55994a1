"""Direct tests of tracker.reading.wording: what undo, redo, the history view and `tracker show`
say a change was (module docstring), each promise held by a case worked out by hand.

The words of each kind are the table of kinds' (tracker/engine/kinds.py: "NAME takes N
RESOURCE", "note: TEXT", "time moves on to segment N"); what this module adds is who made
the change, the segment it was made on, the visible stand-ins for control characters,
and the order of the history."""

from __future__ import annotations

from tests.helpers import advance, declare, encounter
from tracker.engine import Encounter, Event
from tracker.reading.wording import HistoryLine, change_line, describe, dice_words, history, segment_of


def _fight() -> tuple[Encounter, Event, Event]:
    """Ann and Bob join at segment 0; at segment 3 bob's player hurts Ann for 4 hp; at
    segment 7 the GM (unsigned) writes a note."""
    enc = encounter("Ann", "Bob")
    advance(enc, 3)
    hurt = enc.apply(Event("damage", {"target": "Ann", "amount": 4, "resource": "hp"}, by="player:bob"))
    advance(enc, 7)
    note = enc.apply(Event("note", {"text": "ambush"}))
    return enc, hurt, note


# ------------------------------------------------------------------ dice_words
def test_dice_words_say_who_decided_the_faces() -> None:
    """docs/guide/players.md: every declaration says who decided its faces: "dice typed by
    the player", "the app's dice" or partly typed, partly the app's."""
    assert dice_words({"dice": "typed"}) == " (dice typed by the player)"
    assert dice_words({"dice": "app"}) == " (the app's dice)"
    assert dice_words({"dice": "typed+app"}) == " (dice partly typed, partly the app's)"


def test_dice_words_are_empty_when_not_recorded() -> None:
    """'' when not recorded: an old save's declaration, or a mark the tracker does not know."""
    assert dice_words({}) == ""
    assert dice_words({"dice": ""}) == ""
    assert dice_words({"dice": "loaded"}) == ""
    assert dice_words({"dice": None}) == ""


# ------------------------------------------------------------------ describe
def test_describe_names_who_made_a_signed_change_unless_told_not_to() -> None:
    enc, hurt, note = _fight()
    assert describe(hurt) == "Ann takes 4 hp (player bob)"
    assert describe(hurt, by=False) == "Ann takes 4 hp"
    assert describe(note) == "note: ambush"  # unsigned: nobody named
    gm = Event("note", {"text": "x"}, by="gm:alice")
    assert describe(gm) == "note: x (GM alice)"


# ------------------------------------------------------------------ segment_of
def test_segment_of_is_the_segment_the_change_was_made_on() -> None:
    enc, hurt, note = _fight()
    assert segment_of(enc, hurt) == 3
    assert segment_of(enc, note) == 7
    first = enc.effective_events()[0]
    assert first.kind == "add" and segment_of(enc, first) == 0


def test_segment_of_a_change_that_wrote_no_line_is_unknown() -> None:
    """Time moving on with nothing happening writes no log line: its segment is not known
    from the log (None), even with lines before and after it."""
    enc, hurt, note = _fight()
    quiet = next(e for e in enc.effective_events() if e.kind == "advance" and e.args["to"] == 7)
    assert quiet.seq > hurt.seq and quiet.seq < note.seq
    assert segment_of(enc, quiet) is None
    unknown = Event("note", {"text": "never applied"}, seq=10_000)
    assert segment_of(enc, unknown) is None


def test_segment_of_a_change_with_several_lines_is_its_first_lines() -> None:
    """One advance that lands two actions writes a line at segment 3 and one at segment 5:
    the change is placed by its first line (3), not its last."""
    enc = encounter("Ann", "Bob")
    declare(enc, "Ann", "punch", 3)
    declare(enc, "Bob", "kick", 5)
    advance(enc, 10)
    move = enc.effective_events()[-1]
    assert move.kind == "advance"
    assert [entry.segment for entry in enc.log if entry.seq == move.seq] == [3, 5]
    assert segment_of(enc, move) == 3
    # and a change before it is still found past the advance's lines
    kick = enc.effective_events()[-2]
    assert kick.kind == "declare" and segment_of(enc, kick) == 0


# ------------------------------------------------------------------ change_line
def test_change_line_gives_the_segment_and_who_unless_it_is_me() -> None:
    enc, hurt, note = _fight()
    assert change_line(enc, hurt) == "Ann takes 4 hp at segment 3 (player bob)"
    assert change_line(enc, hurt, me="player:bob") == "Ann takes 4 hp at segment 3"
    assert change_line(enc, hurt, me="gm:alice") == "Ann takes 4 hp at segment 3 (player bob)"
    assert change_line(enc, note) == "note: ambush at segment 7"


def test_change_line_of_time_moving_on_has_no_segment_of_its_own() -> None:
    """"time moves on to segment 10" already says where: no "at segment" is added, even
    when the advance wrote lines at earlier segments."""
    enc = encounter("Ann")
    declare(enc, "Ann", "punch", 3)
    advance(enc, 10)
    move = enc.effective_events()[-1]
    assert change_line(enc, move) == "time moves on to segment 10"


def test_change_line_shows_control_characters_visibly() -> None:
    """Module docstring: control characters in names and notes are shown visibly, never
    sent to the terminal: ESC is drawn as U+241B (SYMBOL FOR ESCAPE), in the text and in
    who made it."""
    enc = encounter("Ann")
    note = enc.apply(Event("note", {"text": "red\x1b[31m"}, by="player:b\x07b"))
    line = change_line(enc, note)
    assert line == "note: red\u241b[31m at segment 0 (player b\u2407b)"
    assert "\x1b" not in line and "\x07" not in line


# ------------------------------------------------------------------ history
def test_history_is_the_effective_changes_newest_first() -> None:
    """What undo would take back, in order: an undone change and the undo itself are not
    in it; time moving on is placed at the segment it moved to; the others where they were
    made; who made each is in words, '' for an unsigned change."""
    enc, hurt, note = _fight()
    undone = enc.apply(Event("note", {"text": "oops"}))
    enc.apply(Event("undo", {"target": undone.seq}))
    lines = history(enc)
    assert lines == [
        HistoryLine(note.seq, 7, "note: ambush", ""),
        HistoryLine(note.seq - 1, 7, "time moves on to segment 7", ""),
        HistoryLine(hurt.seq, 3, "Ann takes 4 hp", "player bob"),
        HistoryLine(hurt.seq - 1, 3, "time moves on to segment 3", ""),
        HistoryLine(2, 0, "Bob joins the fight", ""),
        HistoryLine(1, 0, "Ann joins the fight", ""),
    ]


def test_history_places_a_change_by_its_first_line_and_shows_controls_visibly() -> None:
    enc = encounter("Ann", "Bob")
    declare(enc, "Ann", "punch", 3)
    declare(enc, "Bob", "kick", 5)
    advance(enc, 4)
    late = enc.apply(Event("note", {"text": "bell\x07"}, by="gm:\x1b"))
    advance(enc, 10)  # lands Bob's kick at 5, no other line
    lines = history(enc)
    assert lines[0] == HistoryLine(lines[0].seq, 10, "time moves on to segment 10", "")
    assert lines[1] == HistoryLine(late.seq, 4, "note: bell\u2407", "GM \u241b")
    assert [line.segment for line in lines[2:]] == [4, 0, 0, 0, 0]
