"""Moved to `tracker.dice_plan` (it has no Textual in it); kept so older imports work."""

from tracker.dice_plan import (
    DECLARE,
    MAINTAIN,
    Attempt,
    Step,
    accept,
    dry_run,
    group_lines,
    maintain_takes_dice,
    prompt,
    remaining,
    request_for,
    result_figures,
    roll,
)

__all__ = [
    "DECLARE", "MAINTAIN", "Attempt", "Step", "accept", "dry_run", "group_lines", "maintain_takes_dice",
    "prompt", "remaining", "request_for", "result_figures", "roll",
]
