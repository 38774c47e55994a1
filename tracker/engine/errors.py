"""Errors the user can act on. Their message is shown as is, never a traceback."""

from __future__ import annotations

from collections.abc import Sequence

# A refusal names the combatants a reader may know, so a typo is fixed from the message;
# past this many it names those that look like what was typed (then the first ones), and
# how many more: forty goblins are not a message.
NAMES_IN_A_REFUSAL = 8


class TrackerError(Exception):
    """A problem with input that the person at the keyboard can fix."""


class RuleRefusal(TrackerError):
    """An initiation or command refused by a timeline rule; `rule` names the rule."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{message} (rule: {rule})")
        self.rule = rule


class CommandError(TrackerError):
    """A command line that could not be understood."""


def listed(known: Sequence[str], typed: str = "") -> str:
    """The names a refusal gives (those this reader may know): all of a few; of more, the
    ones like `typed` first, `NAMES_IN_A_REFUSAL` at most, and how many more."""
    if len(known) <= NAMES_IN_A_REFUSAL:
        return ", ".join(known) or "none yet"
    folded = typed.casefold().strip()
    alike = [n for n in known if folded and (n.casefold().startswith(folded) or folded in n.casefold())]
    shown = (alike + [n for n in known if n not in alike])[:NAMES_IN_A_REFUSAL]
    return f"{', '.join(shown)} and {len(known) - len(shown)} more"


def no_such_combatant(name: str, known: Sequence[str], prefix: str = "") -> TrackerError:
    """The refusal for a name nobody in `known` (the names this reader may know) bears."""
    return TrackerError(f"{prefix}no combatant named {name!r} (combatants: {listed(known, name)})")
