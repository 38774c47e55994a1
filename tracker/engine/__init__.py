"""The pure domain: segment clock, combatants, actions, event log. No Textual, no I/O."""

from tracker.engine.clock import TimeMapping
from tracker.engine.effects import Adjust, Condition, Damage, Note, Resolution, Throwback, Upkeep
from tracker.engine.encounter import Encounter
from tracker.engine.errors import CommandError, RuleRefusal, TrackerError, no_such_combatant
from tracker.engine.model import (
    ABORTED,
    ACTIVE,
    COMPLETED,
    IN_PROGRESS,
    INTERRUPTED,
    PASSIVE,
    Action,
    Combatant,
    CombatantSetup,
    Event,
    LogEntry,
    Setup,
)

__all__ = [
    "ABORTED", "ACTIVE", "COMPLETED", "IN_PROGRESS", "INTERRUPTED", "PASSIVE",
    "Action", "Adjust", "Combatant", "CombatantSetup", "CommandError", "Condition", "Damage",
    "Encounter", "Event", "LogEntry", "Note", "Resolution", "RuleRefusal", "Setup",
    "Throwback", "TimeMapping", "TrackerError", "Upkeep", "no_such_combatant",
]
