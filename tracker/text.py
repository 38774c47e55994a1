"""Text from files and people, made harmless to show on a terminal.

Names, notes, templates and anything else a person typed or a file held are data: they
are never interpreted as markup, and never reach a terminal with control characters in
them (an ESC in a name could otherwise set a viewer's clipboard, move the cursor or
make the terminal answer with injected input). `visible` turns every control character
into a printable stand-in: C0 controls and DEL become their Unicode Control Pictures
(ESC -> ␛), C1 controls and the bidirectional overrides that reorder text on screen
become `<U+009B>`-style tags. New text with controls in it is refused at the door
(`refuse_controls`); text that already holds them (an old or hand-edited file) is shown
through `visible` everywhere: the app, `tracker show`, exports.
"""

from __future__ import annotations

import re

from tracker.engine.errors import TrackerError

# C0, DEL, C1; plus the bidi embeddings/overrides/isolates (Trojan Source).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _stand_in(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    return f"<U+{code:04X}>"


def visible(text: str) -> str:
    """`text` with every control character replaced by a printable stand-in."""
    return _CONTROL.sub(_stand_in, text) if _CONTROL.search(text) else text


def has_controls(text: str) -> bool:
    return _CONTROL.search(text) is not None


def refuse_controls(text: str, what: str) -> str:
    """Return `text`, or refuse it naming `what` and the first control character."""
    found = _CONTROL.search(text)
    if found is not None:
        raise TrackerError(
            f"{what}: control characters are not allowed "
            f"(found {_stand_in(found)} at character {found.start() + 1})"
        )
    return text
