"""The D6 sheet's die-code stats (`rulesets/d6/sheet.py`), tested directly for the
mutation run: `canonical` checks a stat by its own name, and `CodeField.expected` says
what each kind of code the form asks for.

From the module docstring: a `weapon` written with a leading "+" ("+1D") adds to the
wielder's Strength Damage, so its "+" is kept; `armor` adds dice to the damage
resistance (none is 0D); a bad value is reported by name ("Merc.physique: expected a
die code such as 3D, 4D+2 or 2D-1, got 'x'") and a good one stored in canonical form
("4d+2" -> "4D+2"). A skill or attribute needs at least 1D to roll (the seed rolls
dice for it).
"""

from __future__ import annotations

import pytest

from rulesets.d6.sheet import SHEET, CodeField, canonical
from rulesets.fields import FieldError

DIE_CODE = "a die code such as 3D, 4D+2 or 2D-1"


def field(name: str) -> CodeField:
    found = next(f for f in SHEET if f.name == name)
    assert isinstance(found, CodeField)
    return found


def test_canonical_keeps_a_weapons_plus_and_names_the_stat() -> None:
    """A knife's "+1d" adds to Strength Damage: its canonical form keeps the "+" ("+1D");
    read as any other stat it would lose it ("1D")."""
    assert canonical("weapon", "+1d", "Merc") == "+1D"
    assert canonical("weapon", "4d", "Merc") == "4D"
    assert canonical("physique", "4d+2", "Merc") == "4D+2"


def test_canonical_lets_armour_be_no_dice_but_not_a_skill() -> None:
    """Armour adds dice to resistance, so 0D (none) is a valid armour; a skill of 0D is
    refused, naming the sheet and stat and the least it takes."""
    assert canonical("armor", "0D", "Merc") == "0D"
    with pytest.raises(FieldError) as caught:
        canonical("dodge", "0D", "Merc")
    assert str(caught.value) == f"Merc.dodge: expected {DIE_CODE} (at least 1D), got '0D'"


def test_canonical_reports_an_unreadable_code_by_sheet_and_stat() -> None:
    """The docstring's own example: "Merc.physique: expected a die code such as 3D,
    4D+2 or 2D-1, got 'x'"; a weapon that does not read asks for a damage code."""
    with pytest.raises(FieldError) as caught:
        canonical("physique", "x", "Merc")
    assert str(caught.value) == f"Merc.physique: expected {DIE_CODE}, got 'x'"
    with pytest.raises(FieldError) as caught:
        canonical("weapon", "x", "Merc")
    assert str(caught.value) == "Merc.weapon: expected a damage code such as 4D or +1D, got 'x'"


def test_each_code_field_says_what_it_expects() -> None:
    """The form's help: a weapon asks for a damage code ("4D or +1D"); a skill or an
    attribute for a die code of at least 1D; armour for one of at least 0D."""
    assert field("weapon").expected() == "a damage code such as 4D or +1D"
    assert field("dodge").expected() == f"{DIE_CODE} (at least 1D)"
    assert field("physique").expected() == f"{DIE_CODE} (at least 1D)"
    assert field("armor").expected() == f"{DIE_CODE} (at least 0D)"
