"""Errors the user can act on. Their message is shown as is, never a traceback."""

from __future__ import annotations


class TrackerError(Exception):
    """A problem with input that the person at the keyboard can fix."""


class RuleRefusal(TrackerError):
    """An initiation or command refused by a timeline rule; `rule` names the rule."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{message} (rule: {rule})")
        self.rule = rule


class CommandError(TrackerError):
    """A command line that could not be understood."""
