"""Text from files and people, made harmless to show on a terminal, and checked at the door.

Names, notes, templates and anything else a person typed or a file held are data: they
are never interpreted as markup, and never reach a terminal with control characters in
them (an ESC in a name could otherwise set a viewer's clipboard, move the cursor or
make the terminal answer with injected input).

Decisions: docs/decisions/0015-text-rules.md, docs/decisions/0052-look-alike-names.md
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from difflib import SequenceMatcher
from functools import cache
from pathlib import Path
from typing import TextIO

from rich.cells import cell_len, split_graphemes

from tracker.engine.errors import TrackerError

MAX_MARKS = 4  # combining marks on one character: Vietnamese and pointed Hebrew need 2-4
NAME_CELLS = 40
TITLE_CELLS = 80  # an encounter's title has a line of its own

# Refused in any typed text: C0, DEL, C1; the bidi embeddings/overrides/isolates (Trojan
# Source); the line and paragraph separators; lone surrogates (bytes that were not UTF-8).
_REFUSED = "[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]"
# Blocks that hold no control, format or separator character and no combining mark
# (a test checks each against Python's Unicode database): text made only of these has
# nothing `printable` would change, which a regex finds in C. Latin, Greek, Cyrillic,
# Armenian, punctuation, arrows and symbols, box drawing, kana, CJK, Hangul, fullwidth
# forms, emoji. Other scripts (Hebrew, Arabic, Indic, Thai, ...) take the slower path.
PLAIN_BLOCKS = (
    (0x20, 0x7E), (0xA0, 0xAC), (0xAE, 0x2FF), (0x370, 0x482), (0x48A, 0x590),
    (0x1E00, 0x1FFF), (0x2010, 0x2027), (0x2030, 0x205F), (0x2070, 0x20CF),
    (0x2100, 0x2BFF), (0x3000, 0x3029), (0x3030, 0x3098), (0x309B, 0x9FFF),
    (0xAC00, 0xD7A3), (0xFF01, 0xFFEF), (0x1F000, 0x1FAFF),
)  # fmt: skip
_PLAIN = "[" + "".join(f"\\U{low:08X}-\\U{high:08X}" for low, high in PLAIN_BLOCKS) + "]*"


@cache
def _pattern(text: str) -> re.Pattern[str]:
    # Compiled when first needed, not at import: building these two classes of
    # characters is 3 ms of every start, and most text is printable ASCII.
    return re.compile(text)
_SHOWN_AS_TAGS = frozenset(("Cc", "Cf", "Zl", "Zp", "Cs"))
# Characters that are not spaces yet draw as blank or as nothing at all (the format
# characters are refused apart): a name holding one reads as another name, or as none.
BLANK = frozenset((
    "\u034f",  # COMBINING GRAPHEME JOINER
    "\u115f", "\u1160", "\u3164", "\uffa0",  # the Hangul fillers
    "\u17b4", "\u17b5",  # KHMER VOWEL INHERENT AQ, AA
    "\u2800",  # BRAILLE PATTERN BLANK
))  # fmt: skip
_MARKS = frozenset(("Mn", "Me"))


def _stand_in(char: str) -> str:
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    if 0xDC80 <= code <= 0xDCFF:  # how Python reads a byte that is not UTF-8
        return f"<0x{code - 0xDC00:02X}>"
    return f"<U+{code:04X}>"


def _more_marks(count: int) -> str:
    return f"<+{count - MAX_MARKS} marks>"


def printable(text: str) -> str:
    """`text` with every control and format character replaced by a printable stand-in,
    and runs of combining marks cut to `MAX_MARKS`."""
    if text.isascii() and text.isprintable() or _pattern(_PLAIN).fullmatch(text):
        return text
    out: list[str] = []
    marks = 0
    for char in text:
        kind = unicodedata.category(char)
        if kind in _MARKS:
            marks += 1
            if marks <= MAX_MARKS:
                out.append(char)
            continue
        if marks > MAX_MARKS:
            out.append(_more_marks(marks))
        marks = 0
        out.append(_stand_in(char) if kind in _SHOWN_AS_TAGS else char)
    if marks > MAX_MARKS:
        out.append(_more_marks(marks))
    return "".join(out)


def printable_lines(text: str) -> str:
    """`printable` for output that is lines of text: the line ends are kept."""
    if "\n" not in text:
        return printable(text)
    return "\n".join(printable(line) for line in text.split("\n"))


class Shown:
    """A text stream whose every write passes through `printable_lines` first.

    The CLI writes all it prints (results, messages, argparse's usage errors) through
    one of these, so no message can forget to make quoted text harmless."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(printable_lines(text))
        return len(text)

    def writelines(self, lines: list[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self.stream.flush()

    def __getattr__(self, name: str) -> object:  # isatty, fileno, encoding, ...
        return getattr(self.stream, name)


def _what_kind(char: str) -> str:
    """What a refused character is, in words a GM can act on."""
    code = ord(char)
    if code in (0x200E, 0x200F, 0x061C) or 0x202A <= code <= 0x202E or 0x2066 <= code <= 0x2069:
        return "bidi mark"
    if 0x200B <= code <= 0x200D or code in (0x2060, 0xFEFF):
        return "zero-width character"
    if 0xE0000 <= code <= 0xE007F:
        return "tag character"
    if code in (0x2028, 0x2029):
        return "line or paragraph separator"
    if 0xD800 <= code <= 0xDFFF:
        return "byte that is not UTF-8"
    if unicodedata.category(char) == "Cf":
        return "format character"
    return "control character"


def _refusal(what: str, char: str, index: int, where: str) -> TrackerError:
    return TrackerError(f"{what}: control characters are not allowed{where} (found {_stand_in(char)}, a {_what_kind(char)}, at character {index + 1})")


def refuse_controls(text: str, what: str) -> str:
    """Return `text`, or refuse it naming `what` and the first refused character."""
    found = _pattern(_REFUSED).search(text)
    if found is not None:
        raise _refusal(what, found.group(), found.start(), "")
    return text


def cells(text: str) -> int:
    """The terminal cells `text` takes, as Textual draws it: Rich's `cell_len`, the one
    width count of the tracker and the rulesets (wide characters two, combining marks,
    zero-width joiners' sequences and control characters as Rich joins and counts them)."""
    return cell_len(text)


def graphemes(text: str) -> list[tuple[str, int]]:
    """`text` cut where a terminal can cut it (between Rich's graphemes: an emoji joined
    by zero-width joiners, or a letter and its combining marks, stays whole), each with
    its cells; the cells add up to `cells(text)`."""
    spans, _ = split_graphemes(text)
    return [(text[start:end], size) for start, end, size in spans]


def clip(text: str, width: int) -> str:
    """`printable(text)` in at most `width` cells, cut with "…" where it is wider.

    Columns of names (the roster, the timeline) are measured in cells, not characters:
    a wide character takes two, a combining mark none."""
    shown = printable(text)
    if cells(shown) <= width:
        return shown
    kept: list[str] = []
    used = 0
    for grapheme, size in graphemes(shown):
        if used + size > width - 1:
            break
        kept.append(grapheme)
        used += size
    return "".join(kept) + "…" if width > 0 else ""


def quoted(text: str, limit: int = 40) -> str:
    """`text` someone else chose (an SSH user name, a browser's Origin) as one token of a
    log line: `printable`, at most `limit` characters (cut with "…"), in double quotes with
    any quote or backslash in it escaped, so it cannot pass for the words around it."""
    shown = printable(text)
    if len(shown) > limit:
        shown = shown[: max(0, limit - 1)] + "…"
    return '"' + shown.replace("\\", "\\\\").replace('"', '\\"') + '"'


def fit(text: str, width: int) -> str:
    """`clip(text, width)` padded with spaces to exactly `width` cells."""
    shown = clip(text, width)
    return shown + " " * (width - cells(shown))


def wrap(text: str, width: int, indent: str = "") -> list[str]:
    """`text` in lines of at most `width` terminal cells, broken at spaces (a word wider
    than a line is cut between characters), the lines after the first starting with
    `indent`. textwrap's greedy fill, measured in cells: a CJK or emoji name in the log
    never runs past the pane's edge and loses its tail."""
    width = max(1, width)
    if cells(text) <= width:
        return [text]
    lines: list[str] = []
    line, used = "", 0
    for word in text.split():
        size = cells(word)
        if line.strip() and used + 1 + size <= width:
            line, used = f"{line} {word}", used + 1 + size
            continue
        if line.strip():
            lines.append(line)
            line, used = indent, cells(indent)
        room = width - used
        while size > room and room > 0:  # a word longer than a whole line: cut it
            head, taken = "", 0
            for grapheme, cut in graphemes(word):
                if taken + cut > room:
                    break
                head, taken = head + grapheme, taken + cut
            if not head:
                break
            lines.append(line + head)
            word, size = word[len(head) :], size - taken
            line, used = indent, cells(indent)
            room = width - used
        line, used = line + word, used + size
    if line.strip() or not lines:
        lines.append(line)
    return lines


def refuse_blank(text: str, what: str) -> str:
    """Return `text`, or refuse it naming `what` and the first character in it that draws
    as blank without being a space (`BLANK`)."""
    for index, char in enumerate(text):
        if char in BLANK:
            raise TrackerError(
                f"{what}: characters that draw as blank are not allowed (found {_stand_in(char)}, "
                f"{unicodedata.name(char, 'a blank character')}, at character {index + 1})"
            )
    return text


def check_name(name: str, what: str, limit: int = NAME_CELLS) -> str:
    """Return `name`, or refuse it naming `what`: controls, format characters (bidi marks,
    zero-width and tag characters), separators, characters that draw as blank, a name
    that is only spaces, stacked combining marks, too long."""
    refuse_controls(name, what)
    refuse_blank(name, what)
    if name and not name.strip():
        raise TrackerError(f"{what}: a name cannot be blank (it holds only spaces)")
    marks = 0
    for index, char in enumerate(name):
        kind = unicodedata.category(char)
        if kind == "Cf":
            raise _refusal(what, char, index, " in a name")
        if kind not in _MARKS:
            marks = 0
            continue
        marks += 1
        if index == 0:
            raise TrackerError(f"{what}: a name cannot begin with a combining mark (found <U+{ord(char):04X}>)")
        if marks > MAX_MARKS:
            raise TrackerError(f"{what}: more than {MAX_MARKS} combining marks on one character (at character {index + 1})")
    if len(name) > 2 * limit:  # a combining accent on every character
        raise TrackerError(f"{what}: a name has at most {2 * limit} characters, this one {len(name)}")
    width = cells(name)
    if width > limit:
        raise TrackerError(f"{what}: a name fits in {limit} terminal cells, this one takes {width}")
    return name


# ----------------------------------------------------------------- look-alike names


@cache
def _prototypes() -> dict[str, str]:
    """What each look-alike character reads as (confusables.toml, read on first use)."""
    import tomllib

    with Path(__file__).with_name("confusables.toml").open("rb") as file:
        table: dict[str, str] = tomllib.load(file)["prototypes"]
    return table


def skeleton(text: str) -> str:
    """`text` as it reads, after Unicode TR39's skeleton: NFKC (fullwidth and mathematical
    letters are the plain ones), every character replaced by its prototype
    (confusables.toml: Cyrillic "е" reads as "e"), then case folded. Two texts with the
    same skeleton look alike."""
    plain = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", text))
    table = _prototypes()
    return unicodedata.normalize("NFD", "".join(table.get(char, char) for char in plain)).casefold()


def _readings(text: str) -> set[str]:
    # As typed, and all in one case: "ІVAN" (Cyrillic І) reads as "IVAN", which is "ivan".
    return {skeleton(text), skeleton(text.lower()), skeleton(text.upper())}


def lookalike(name: str, other: str) -> str | None:
    """Whether `name` looks like `other` without being it (ignoring case): the characters
    outside ASCII that make the difference ("<U+0435> CYRILLIC SMALL LETTER IE"), else None.

    Their skeletons match, and they differ in a character outside ASCII: two names typed
    in ASCII are told apart as typed ("Guard 1" and "Guard l", "Arnie" and "Amie"), as a
    keyboard and a terminal's font show them."""
    if name.isascii() and other.isascii():
        return None
    mine, theirs = name.casefold(), other.casefold()
    if mine == theirs or not _readings(name) & _readings(other):
        return None
    # Shown as typed where folding kept the length (it does but for a few letters, "ß").
    typed = name if len(name) == len(mine) else mine
    typed_other = other if len(other) == len(theirs) else theirs
    differing: list[str] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, mine, theirs, autojunk=False).get_opcodes():
        if tag != "equal" and not (mine[i1:i2].isascii() and theirs[j1:j2].isascii()):
            differing.extend(c for c in typed[i1:i2] + typed_other[j1:j2] if not c.isascii())
    if not differing:
        return None
    shown = [f"{_stand_in(c)} {unicodedata.name(c, '')}".rstrip() for c in dict.fromkeys(differing)]
    return ", ".join(shown[:3])


def refuse_lookalike(name: str, others: Iterable[str], what: str, whose: str = "a combatant in the fight") -> str:
    """Return `name`, or refuse it naming `what` and the first of `others` it looks like
    (`whose` says what that one is)."""
    for other in others:
        found = lookalike(name, other)
        if found is not None:
            raise TrackerError(
                f"{what}: {name!r} looks like {other!r}, {whose}, but is not the same "
                f"(they differ by {found}); choose one that reads differently"
            )
    return name


def _as_bytes(text: str) -> bytes:
    """Text read with `surrogateescape` back to the bytes it was read from."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate no byte maps to: left to fail as UTF-8
        return text.encode("utf-8", "surrogatepass")


def command_lines(data: bytes | str, where: str) -> Iterator[tuple[int, str]]:
    """The numbered lines of commands in `data`, split at "\\n" only ("\\r\\n" too).

    Never at the other characters `str.splitlines` takes as line ends (U+2028, U+2029,
    \\x0b, \\x0c, \\x1c-\\x1e, \\x85): inside a line they are refused as controls, naming
    the line, instead of quietly starting a new command. Every line is decoded first: the
    first that is not UTF-8 is refused by its number, before any command runs."""
    raw = _as_bytes(data) if isinstance(data, str) else data
    lines: list[str] = []
    for number, line in enumerate(raw.split(b"\n"), 1):
        try:
            lines.append(line.removesuffix(b"\r").decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise TrackerError(
                f"{where}, line {number}: not UTF-8 text (byte 0x{line[exc.start]:02X} at byte {exc.start + 1}); "
                "save the commands as UTF-8"
            ) from None
    if lines and lines[-1] == "":
        lines.pop()  # the newline that ends the last line
    return enumerate(lines, 1)
