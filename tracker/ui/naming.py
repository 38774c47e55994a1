"""File names the app makes from titles a GM types (a new encounter, a campaign, a
campaign's next fight)."""

from __future__ import annotations

import re


def slug(name: str) -> str:
    """'The Ford, 2' -> 'the-ford-2': lower-case Latin letters and digits, dashes between
    ("encounter" if nothing is left)."""
    text = re.sub(r"[^a-z0-9]+", "-", name.casefold()).strip("-")
    return text or "encounter"
