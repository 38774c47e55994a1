"""The rules for text, one per use (tracker.engine.text): what every output shows (`printable`),
what typed free text may hold (`refuse_controls`), what a name may be (`check_name`),
how command input is split into lines (`command_lines`), and the yes/no words
(`rulesets.fields.yes_no`)."""

from __future__ import annotations

import io
import sys
import unicodedata

import pytest

from rulesets.fields import FieldError, yes_no
from tracker.engine import TrackerError
from tracker.engine.text import MAX_MARKS, NAME_CELLS, PLAIN_BLOCKS, Shown, cells, check_name, clip, fit, command_lines, refuse_controls, printable, printable_lines

# One of each kind the issue names, with the words the refusal uses for it.
REFUSED_IN_NAMES = {
    "\u200e": "bidi mark",  # LEFT-TO-RIGHT MARK
    "\u200f": "bidi mark",  # RIGHT-TO-LEFT MARK
    "\u061c": "bidi mark",  # ARABIC LETTER MARK
    "\u202a": "bidi mark",  # embeddings and overrides ...
    "\u202b": "bidi mark",
    "\u202c": "bidi mark",
    "\u202d": "bidi mark",
    "\u202e": "bidi mark",
    "\u2066": "bidi mark",  # ... and isolates
    "\u2067": "bidi mark",
    "\u2068": "bidi mark",
    "\u2069": "bidi mark",
    "\u200b": "zero-width character",
    "\u200c": "zero-width character",
    "\u200d": "zero-width character",
    "\u2060": "zero-width character",
    "\ufeff": "zero-width character",
    "\U000e0001": "tag character",
    "\U000e0041": "tag character",
    "\U000e007f": "tag character",
    "\u2028": "line or paragraph separator",
    "\u2029": "line or paragraph separator",
    "\u00ad": "format character",  # SOFT HYPHEN
    "\u2062": "format character",  # INVISIBLE TIMES
    "\u180e": "format character",  # MONGOLIAN VOWEL SEPARATOR
    "\x1b": "control character",
    "\x9b": "control character",
    "\x7f": "control character",
    "\udcff": "byte that is not UTF-8",
}
# Refused in free text too; the other format characters (a joiner in an emoji, a mark in
# right-to-left text) are kept there, and shown as tags.
REFUSED_IN_NOTES = {"\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069", "\u2028", "\u2029", "\x1b", "\x9b", "\x7f", "\udcff"}
STACKED = "Z" + "\u0301" * 200


def _every(categories: tuple[str, ...]) -> str:
    return "".join(chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) in categories)


# ----------------------------------------------------------------- visible


def test_every_control_format_and_separator_character_is_made_visible() -> None:
    """All of Unicode's Cc, Cf, Zl, Zp and Cs, not a list that could miss one."""
    hostile = _every(("Cc", "Cf", "Zl", "Zp", "Cs"))
    assert len(hostile) > 2000
    shown = printable(hostile)
    assert not any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp", "Cs") for c in shown)
    assert "␛" in shown and "<U+200B>" in shown and "<U+E0041>" in shown and "<U+2028>" in shown and "<0xFF>" in shown


def test_the_blocks_visible_passes_unread_hold_nothing_it_would_change() -> None:
    """`printable` skips text made only of PLAIN_BLOCKS: none of them may hold a control,
    format or separator character or a combining mark in this Python's Unicode."""
    for low, high in PLAIN_BLOCKS:
        found = [f"U+{c:04X}" for c in range(low, high + 1) if unicodedata.category(chr(c)) in ("Cc", "Cf", "Zl", "Zp", "Cs", "Mn", "Me")]
        assert not found, (hex(low), found)


@pytest.mark.parametrize("char", sorted(REFUSED_IN_NAMES), ids=lambda c: f"U+{ord(c):04X}")
def test_each_refused_kind_is_shown_as_a_stand_in(char: str) -> None:
    shown = printable(f"Ann{char}Lee")
    assert char not in shown
    assert shown.startswith("Ann") and shown.endswith("Lee") and len(shown) > 6


def test_stacked_combining_marks_are_cut_to_the_limit() -> None:
    shown = printable(f"{STACKED} and {STACKED}")
    assert shown == "Z" + "\u0301" * MAX_MARKS + "<+196 marks> and Z" + "\u0301" * MAX_MARKS + "<+196 marks>"
    assert printable(STACKED[: 1 + MAX_MARKS]) == STACKED[: 1 + MAX_MARKS]


@pytest.mark.parametrize("text", ["Seraph", "Nguyễn", "Nguye\u0302\u0303n", "กิ่ง", "Сфинкс", "鬼武者", "عنترة", "😀 x4", "segment 3 · round 1", "[bold]x[/]"])
def test_plain_text_of_any_script_is_left_as_it_is(text: str) -> None:
    assert printable(text) == text


def test_visible_is_idempotent() -> None:
    text = "E\x1b]52;c;AA\x07 \u202e \u200b" + STACKED + "\udcff"
    assert printable(printable(text)) == printable(text)


def test_the_cli_writer_keeps_line_ends_and_escapes_the_rest() -> None:
    sink = io.StringIO()
    written = Shown(sink).write("a\x1b]52;c;AA\x07\nb\tc\r\n")
    assert written == len("a\x1b]52;c;AA\x07\nb\tc\r\n")
    assert sink.getvalue() == "a␛]52;c;AA␇\nb␉c␍\n"
    assert printable_lines("x\n\u2028\n") == "x\n<U+2028>\n"


@pytest.mark.parametrize(
    ("name", "width", "clipped"),
    [("Seraph", 12, "Seraph"), ("Sun-Ruler of the Dunes", 12, "Sun-Ruler o…"), ("鬼武者鬼武者鬼武者", 12, "鬼武者鬼武…"), ("鬼武者鬼武者鬼武者", 11, "鬼武者鬼武…"),
     ("Ann\u200bX", 12, "Ann<U+200B>X"), (STACKED, 12, STACKED[:5] + "<+196 mark…"), ("x", 0, "")],
    ids=["fits", "cut", "wide", "wide, odd width", "format", "stacked", "no room"],
)
def test_columns_of_names_are_measured_in_cells(name: str, width: int, clipped: str) -> None:
    assert clip(name, width) == clipped
    assert cells(fit(name, width)) == width and fit(name, width).startswith(clipped)


# ----------------------------------------------------------------- names


@pytest.mark.parametrize("char", sorted(REFUSED_IN_NAMES), ids=lambda c: f"U+{ord(c):04X}")
def test_names_refuse_each_kind_naming_it(char: str) -> None:
    with pytest.raises(TrackerError) as refused:
        check_name(f"Ann{char}Lee", "add: name")
    message = str(refused.value)
    assert message.startswith("add: name: ")
    assert REFUSED_IN_NAMES[char] in message and "at character 4" in message
    assert char not in message  # the refusal quotes its stand-in, not the character


def test_names_refuse_stacked_marks_and_a_leading_mark() -> None:
    with pytest.raises(TrackerError, match=f"more than {MAX_MARKS} combining marks"):
        check_name(STACKED, "name")
    with pytest.raises(TrackerError, match=f"more than {MAX_MARKS} combining marks"):
        check_name("Z" + "\u0301" * (MAX_MARKS + 1), "name")
    with pytest.raises(TrackerError, match="cannot begin with a combining mark"):
        check_name("\u0301Ann", "name")
    assert check_name("Z" + "\u0301" * MAX_MARKS, "name")


def test_names_have_a_length_in_cells_and_in_characters() -> None:
    assert check_name("x" * NAME_CELLS, "name")
    with pytest.raises(TrackerError, match=f"fits in {NAME_CELLS} terminal cells, this one takes {NAME_CELLS + 1}"):
        check_name("x" * (NAME_CELLS + 1), "name")
    wide = "鬼" * (NAME_CELLS // 2)
    assert cells(wide) == NAME_CELLS and check_name(wide, "name")
    with pytest.raises(TrackerError, match="terminal cells"):
        check_name(wide + "鬼", "name")
    accents = "e\u0301" * NAME_CELLS  # 40 cells, 80 code points
    assert cells(accents) == NAME_CELLS and check_name(accents, "name")
    with pytest.raises(TrackerError, match="at most 80 characters"):
        check_name("e\u0301\u0301" * 30, "name")


@pytest.mark.parametrize("name", ["Seraph", "Sun Ruler", "Nguyễn Văn", "Nguye\u0302\u0303n", "กิ่ง", "鬼武者", "عنترة", "Ann ❤️", "O'Neil-Smith 2"])
def test_names_of_any_script_are_accepted(name: str) -> None:
    assert check_name(name, "name") == name


def test_free_text_keeps_joiners_and_marks_but_not_controls_or_separators() -> None:
    for char in set(REFUSED_IN_NAMES) - REFUSED_IN_NOTES:
        assert refuse_controls(f"note{char}text", "note")
    for char in REFUSED_IN_NOTES:
        with pytest.raises(TrackerError, match="control characters are not allowed"):
            refuse_controls(f"note{char}text", "note")


# ----------------------------------------------------------------- lines of commands


@pytest.mark.parametrize("end", ["\u2028", "\u2029", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\r"], ids=repr)
def test_command_lines_split_at_newline_only(end: str) -> None:
    assert list(command_lines(f"note a{end}b\nstep\n", "<stdin>")) == [(1, f"note a{end}b"), (2, "step")]
    assert list(command_lines(f"note a{end}b\nstep\n".encode(), "<stdin>")) == [(1, f"note a{end}b"), (2, "step")]


def test_command_lines_take_crlf_and_a_missing_last_newline() -> None:
    assert list(command_lines(b"add Ann\r\n\r\nstep", "f")) == [(1, "add Ann"), (2, ""), (3, "step")]
    assert list(command_lines(b"", "f")) == []


def test_command_lines_refuse_bytes_that_are_not_utf8_by_line() -> None:
    with pytest.raises(TrackerError, match=r"^script.txt, line 3: not UTF-8 text \(byte 0xFF at byte 6\)"):
        command_lines(b"add Ann\nstep\nnote \xff\nstep\n", "script.txt")
    with pytest.raises(TrackerError, match=r"^<stdin>, line 2: not UTF-8 text \(byte 0xE9 at byte 1\)"):
        command_lines("step\n\udce9t\u00e9\n", "<stdin>")  # as Python reads Latin-1 bytes


# ----------------------------------------------------------------- yes/no


@pytest.mark.parametrize(("word", "answer"), [("true", True), ("false", False), ("TRUE", True), ("False", False), ("yes", True), ("no", False), (" Yes ", True), (True, True), (False, False)])
def test_yes_no_words(word: object, answer: bool) -> None:
    assert yes_no(word, "secret") is answer


@pytest.mark.parametrize("word", ["ture", "yes-please", "1", "0", "on", "off", "y", "n", "", "truee", "nope", 1, None])
def test_yes_no_refuses_anything_else_naming_the_option_and_the_words(word: object) -> None:
    with pytest.raises(FieldError) as refused:
        yes_no(word, "secret")
    assert str(refused.value).startswith("secret: expected true or false (or yes or no), got ")
