"""One width count (tracker.engine.text.cells) and it is the one Textual draws with: a name
clipped or padded to a column takes exactly the cells Textual gives it, for wide,
joined, combining and control characters alike."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from rich.segment import Segment
from textual.strip import Strip

from tracker.engine.text import cells, clip, fit, graphemes, wrap

ROOT = Path(__file__).resolve().parent.parent

TRICKY = {
    "CJK": "漢字の戦士",
    "full-width Latin": "Ａｂｃ",
    "half-width kana": "ｱｲｳ",
    "ideographic space": "a\u3000b",
    "combining acute": "Cafe\u0301 e\u0301e\u0301",
    "Thai with a combining vowel": "\u0e01\u0e33\u0e02",
    "Hangul jamo": "\u1100\u1161\u11a8x",
    "emoji": "🐉🗡",
    "emoji with skin tone": "👍🏽 ok",
    "zero-width joiner family": "👨\u200d👩\u200d👧 clan",
    "variation selector 16": "\u2764\ufe0f heart",
    "flag": "🇫🇷🇩🇪",
    "zero-width space": "a\u200bb",
    "soft hyphen": "ab\u00adcd",
    "escape and bell": "a\x1b[2Jb\x07",
    "right-to-left override": "x\u202ey",
}


def drawn(text: str) -> int:
    """The cells Textual draws `text` in (a Strip is what a widget's line is made of)."""
    return Strip([Segment(text)]).cell_length


@pytest.mark.parametrize("text", TRICKY.values(), ids=TRICKY.keys())
def test_cells_agree_with_what_textual_draws(text: str) -> None:
    assert cells(text) == drawn(text)
    assert sum(size for _, size in graphemes(text)) == cells(text)
    assert "".join(g for g, _ in graphemes(text)) == text


@pytest.mark.parametrize("text", TRICKY.values(), ids=TRICKY.keys())
@pytest.mark.parametrize("width", [1, 2, 3, 5, 8])
def test_a_clipped_or_padded_name_fills_its_column_as_drawn(text: str, width: int) -> None:
    clipped = clip(text, width)
    assert drawn(clipped) <= width
    padded = fit(text, width)
    assert drawn(padded) == width  # the next column starts where it should
    for line in wrap(text, width):
        assert drawn(line) <= width or cells(line.strip()) > width  # only a lone grapheme wider than the line


def test_a_joined_emoji_is_never_cut_apart() -> None:
    family = "👨\u200d👩\u200d👧"
    assert cells(family) == 2  # Textual draws the family in two cells
    assert graphemes(family + "e\u0301") == [(family, 2), ("e\u0301", 1)]
    assert wrap(family * 3, 4) == [family * 2, family]  # a word wider than the line is cut between graphemes
    assert clip("漢字の戦士", 4) == "漢…"  # a wide character never half-drawn
    # shown text carries the joiner as a tag (tracker.engine.text.printable), measured as drawn
    assert drawn(clip(family, 8)) <= 8


def test_no_other_width_count_in_the_code() -> None:
    """tracker/ and rulesets/ measure widths only through tracker.engine.text.cells."""
    hand_made = {"east_asian_width", "wcwidth", "wcswidth", "get_character_cell_size"}  # `.cell_len` of a Rich Text is Rich's own
    for path in [*(ROOT / "tracker").rglob("*.py"), *(ROOT / "rulesets").rglob("*.py")]:
        if path == ROOT / "tracker" / "engine" / "text.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)} | {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
        names |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names}
        assert not names & hand_made, path
        imports = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module == "rich.cells" for alias in node.names}
        assert not imports, f"{path}: measures widths itself ({imports})"
    text = (ROOT / "tracker" / "engine" / "text.py").read_text(encoding="utf-8")
    assert "east_asian_width" not in text
