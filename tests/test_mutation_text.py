"""Direct tests of tracker.engine.text (docs/decisions/0015-text-rules.md): each refused
character named in words a GM can act on, where it is (1-based), the stand-in shown for
it, and the cuts `quoted`, `clip`, `fit` and `wrap` make, worked by hand."""

from __future__ import annotations

import io

import pytest

from tracker.engine.errors import TrackerError
from tracker.engine.text import Shown, check_name, clip, command_lines, fit, printable, printable_lines, quoted, refuse_blank, refuse_controls, skeleton, wrap


@pytest.mark.parametrize(("char", "shown", "kind"), [
    ("\x07", "\u2407", "control character"),  # C0: the Control Pictures block, U+2400 + code
    ("\x00", "\u2400", "control character"),
    ("\x1f", "\u241f", "control character"),
    ("\x7f", "\u2421", "control character"),  # DEL
    ("\x85", "<U+0085>", "control character"),  # C1
    ("\u202e", "<U+202E>", "bidi mark"),
    ("\u2066", "<U+2066>", "bidi mark"),
    ("\u2069", "<U+2069>", "bidi mark"),
    ("\u2028", "<U+2028>", "line or paragraph separator"),
    ("\u2029", "<U+2029>", "line or paragraph separator"),
    ("\udcff", "<0xFF>", "byte that is not UTF-8"),  # how Python reads a byte that is not UTF-8
    ("\udc80", "<0x80>", "byte that is not UTF-8"),
    ("\ud800", "<U+D800>", "byte that is not UTF-8"),
])
def test_a_refused_character_is_named_with_its_place(char: str, shown: str, kind: str) -> None:
    with pytest.raises(TrackerError) as refused:
        refuse_controls(f"ab{char}c", "note")
    assert str(refused.value) == f"note: control characters are not allowed (found {shown}, a {kind}, at character 3)"
    assert printable(char) == shown


@pytest.mark.parametrize(("char", "kind"), [
    ("\u200e", "bidi mark"), ("\u200f", "bidi mark"), ("\u061c", "bidi mark"),
    ("\u200b", "zero-width character"), ("\u200d", "zero-width character"), ("\u2060", "zero-width character"),
    ("\ufeff", "zero-width character"), ("\U000e0001", "tag character"), ("\U000e007f", "tag character"),
    ("\u00ad", "format character"),
])
def test_a_format_character_in_a_name_is_named(char: str, kind: str) -> None:
    """Format characters are refused in names (not in notes), each named."""
    with pytest.raises(TrackerError, match=rf"^name: control characters are not allowed in a name \(found <U\+{ord(char):04X}>, a {kind}, at character 2\)$"):
        check_name(f"A{char}n", "name")


def test_the_name_rules_in_order() -> None:
    with pytest.raises(TrackerError, match=r"^name: a name cannot be blank \(it holds only spaces\)$"):
        check_name("   ", "name")
    with pytest.raises(TrackerError, match=r"^name: a name cannot begin with a combining mark \(found <U\+0301>\)$"):
        check_name("\u0301a", "name")
    assert check_name("e" + "\u0301" * 4, "name")  # four marks on one character: Vietnamese needs them
    with pytest.raises(TrackerError, match=r"^name: more than 4 combining marks on one character \(at character 6\)$"):
        check_name("e" + "\u0301" * 5, "name")
    assert check_name("é\u0301" * 2 + "a\u0301", "name")  # the count starts again on each character
    assert check_name("x" * 40, "name") == "x" * 40
    with pytest.raises(TrackerError, match=r"^name: a name fits in 40 terminal cells, this one takes 41$"):
        check_name("x" * 41, "name")
    with pytest.raises(TrackerError, match=r"^name: a name fits in 40 terminal cells, this one takes 42$"):
        check_name("漢" * 21, "name")  # wide: two cells each
    with pytest.raises(TrackerError, match=r"^name: a name has at most 80 characters, this one 81$"):
        check_name("e\u0301" * 40 + "x", "name")
    assert check_name("", "name") == ""  # empty is the caller's to refuse
    assert check_name("Ann", "name", limit=3) == "Ann"


def test_a_character_that_draws_as_blank_is_named() -> None:
    with pytest.raises(TrackerError, match=r"^name: characters that draw as blank are not allowed \(found <U\+2800>, BRAILLE PATTERN BLANK, at character 2\)$"):
        refuse_blank("A\u2800", "name")
    assert refuse_blank("A B", "name") == "A B"


def test_quoted_is_one_token_of_a_line() -> None:
    """Printable, at most `limit` characters cut with "…", quotes and backslashes escaped."""
    assert quoted("bob") == '"bob"'
    assert quoted('say "hi"\\') == '"say \\"hi\\"\\\\"'
    assert quoted("x" * 40) == '"' + "x" * 40 + '"'
    assert quoted("x" * 41) == '"' + "x" * 39 + '…"'
    assert quoted("abcdef", limit=4) == '"abc…"'
    assert quoted("a\x1b", limit=4) == '"a\u241b"'


def test_clip_and_fit_measure_cells() -> None:
    assert clip("abcdef", 6) == "abcdef"
    assert clip("abcdef", 5) == "abcd…"
    assert clip("漢字漢字", 5) == "漢字…"  # 2 + 2 + 1
    assert clip("漢字漢字", 4) == "漢…"  # a wide character is never halved
    assert clip("abc", 0) == ""
    assert fit("ab", 4) == "ab  "
    assert fit("漢", 4) == "漢  "
    assert fit("abcdef", 4) == "abc…"


def test_wrap_at_spaces_with_an_indent() -> None:
    assert wrap("alpha beta gamma delta", 11, "  ") == ["alpha beta", "  gamma", "  delta"]
    assert wrap("alpha beta", 10) == ["alpha beta"]
    assert wrap("abcdefghijklmnop", 5, " ") == ["abcde", " fghi", " jklm", " nop"]  # a long word cut
    assert wrap("ab 漢字漢字", 5) == ["ab", "漢字", "漢字"]
    assert wrap("", 5) == [""]
    assert wrap("ab cd", 0) == ["a", "b", "c", "d"]  # at least one cell a line


def test_command_lines_are_numbered_and_a_bad_byte_is_placed() -> None:
    assert list(command_lines(b"add Ann\r\nnext\n", "f")) == [(1, "add Ann"), (2, "next")]
    assert list(command_lines("a\n\nb", "f")) == [(1, "a"), (2, ""), (3, "b")]
    assert list(command_lines(b"", "f")) == []
    with pytest.raises(TrackerError, match=r"^cmds\.txt, line 2: not UTF-8 text \(byte 0xFF at byte 3\); save the commands as UTF-8$"):
        list(command_lines(b"ok\nab\xffc\n", "cmds.txt"))
    with pytest.raises(TrackerError, match=r"^stdin, line 1: not UTF-8 text \(byte 0xFE at byte 1\)"):
        list(command_lines("\udcfe".encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape"), "stdin"))


def test_a_lone_surrogate_that_no_byte_maps_to_is_a_tag() -> None:
    """0015: only a byte that was not UTF-8 (U+DC80-U+DCFF, as Python reads one) is shown
    as `<0xFF>`; any other lone surrogate is a `<U+...>` tag, still named a byte that is
    not UTF-8 up to the last surrogate, U+DFFF."""
    assert printable("\udcff\udd00") == "<0xFF><U+DD00>"
    with pytest.raises(TrackerError, match=r"found <U\+DFFF>, a byte that is not UTF-8, at character 1\)$"):
        refuse_controls("\udfff", "note")


def test_a_format_character_after_the_bidi_isolates_is_a_format_character() -> None:
    """U+206A (a deprecated format character) follows the isolates U+2066-U+2069: a name
    refuses it as a format character, not a bidi mark."""
    with pytest.raises(TrackerError, match=r"found <U\+206A>, a format character, at character 2\)$"):
        check_name("A\u206an", "name")


def test_marks_at_the_start_of_a_text_are_counted_from_the_first() -> None:
    """An old note may begin with combining marks: four are kept, a fifth is counted."""
    assert printable("\u0301" * 4) == "\u0301" * 4
    assert printable("\u0301" * 5) == "\u0301" * 4 + "<+1 marks>"


def test_the_cli_writer_passes_every_line_and_everything_else_to_its_stream() -> None:
    """`Shown`: one line or many, through `writelines` too; the rest (isatty, getvalue,
    ...) is the stream's own."""
    assert printable_lines("a\x1b") == "a\u241b"
    stream = io.StringIO()
    shown = Shown(stream)
    shown.writelines(["a\x1b", "b\n"])
    assert stream.getvalue() == "a\u241bb\n"
    assert shown.getvalue() == "a\u241bb\n"
    assert shown.isatty() is False


def test_one_cell_holds_only_the_cut_mark() -> None:
    """`clip` in one cell: "…" alone; `quoted` to one character: "…" alone."""
    assert clip("ab", 1) == "…"
    assert fit("ab", 1) == "…"
    assert quoted("ab", limit=1) == '"…"'


def test_a_blank_text_wider_than_the_line_is_still_one_line() -> None:
    """Every text takes at least one line, as the empty text does: a log entry of spaces
    is never dropped from the pane."""
    assert wrap(" " * 6, 3) == [""]


def test_a_skeleton_is_the_text_as_it_reads() -> None:
    """0052: NFKC, each character's prototype, case folded: Cyrillic "е" reads as "e",
    fullwidth "Ｓ" as "S"."""
    assert skeleton("S\u0435raph") == "seraph"
    assert skeleton("\uff33eraph") == "seraph"


def test_a_lone_surrogate_typed_in_commands_is_refused_by_its_line() -> None:
    """A surrogate that no byte maps to (U+D800 in text handed in) is read back as the
    bytes Python keeps for it (ED A0 80), which are not UTF-8: refused by its line."""
    with pytest.raises(TrackerError, match=r"^stdin, line 2: not UTF-8 text \(byte 0xED at byte 2\); save the commands as UTF-8$"):
        list(command_lines("ok\nx\ud800", "stdin"))


def test_a_text_that_fits_is_one_line_as_it_was_typed() -> None:
    """As textwrap's fill: a text that fits keeps its spaces (textwrap.wrap("a  b", 4) is
    ["a  b"])."""
    assert wrap("a  b", 4) == ["a  b"]
