"""Lines wrapped in terminal cells (`tracker.engine.text.wrap`): the log and the upcoming list."""

from __future__ import annotations

import textwrap

from hypothesis import given
from hypothesis import strategies as st

from tracker.engine.text import cells, wrap

WORDS = st.lists(st.sampled_from(["Seraph", "山田太郎", "🐉", "e\u0301te\u0301", "a" * 30, "x", "龍" * 12]), max_size=30)


@given(WORDS, st.integers(min_value=4, max_value=60))
def test_no_line_is_wider_than_the_pane_and_no_word_is_lost(words: list[str], width: int) -> None:
    text = " ".join(words)
    lines = wrap(text, width, "  ")
    assert all(cells(line) <= width for line in lines), lines
    assert "".join(line.strip() for line in lines).replace(" ", "") == text.replace(" ", "")
    assert all(line.startswith("  ") for line in lines[1:])


def test_wide_characters_count_two_cells() -> None:
    # 山田太郎 is 4 characters and 8 cells: in 10 cells "山田太郎 hits" (13 cells) breaks.
    assert wrap("山田太郎 hits", 10, "  ") == ["山田太郎", "  hits"]
    assert wrap("Seraph hits", 11) == ["Seraph hits"]


def test_plain_text_wraps_as_textwrap_does() -> None:
    text = "the quick brown fox jumps over the lazy dog " * 5
    for width in (12, 20, 33):
        assert wrap(text, width, "  ") == textwrap.wrap(text, width, subsequent_indent="  ")
