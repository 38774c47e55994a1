"""Direct tests of tracker.ui.naming (the file names the app makes from titles a GM
types), worked from its docstring: lower-case Latin letters and digits, one dash between
runs of anything else, none at either end, "encounter" when nothing is left."""

from __future__ import annotations

import pytest

from tracker.ui.naming import slug


@pytest.mark.parametrize(
    ("title", "name"),
    [
        ("The Ford, 2", "the-ford-2"),  # the docstring's own example
        ("Bridge fight", "bridge-fight"),
        ("ORC CAMP 3", "orc-camp-3"),  # upper case made lower
        ("a -- b", "a-b"),  # a run of other characters is one dash
        ("  [Ambush] at dawn!  ", "ambush-at-dawn"),  # none at either end
        ("-x-", "x"),
        ("Grüße", "gr-sse"),  # casefold: ß is "ss"; ü is not a Latin letter a-z
        ("Ω9", "9"),
        ("7", "7"),
    ],
)
def test_a_title_becomes_latin_letters_and_digits_with_dashes_between(title: str, name: str) -> None:
    assert slug(title) == name


@pytest.mark.parametrize("title", ["", "   ", "[/]", "---", "Ωμέγα", "\x1b[\x7f"])
def test_a_title_with_nothing_left_is_named_encounter(title: str) -> None:
    assert slug(title) == "encounter"
