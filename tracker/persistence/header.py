"""A save's header, written and read: everything before its events (the schema, the
name, the ruleset and its house rules, the settings, the roster, the players' dice key,
the campaign). Reading one checks every key, naming the file, table and key.

Decisions: docs/decisions/0007-save-format.md, docs/decisions/0044-save-limits.md
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from tracker.engine import CombatantSetup, Encounter, Setup, TrackerError
from tracker.engine.shapes import BOOL, INT, STR, TABLE
from tracker.persistence import folder
from tracker.persistence.checks import SaveError, as_save_error, check, check_numbers, need, shown
from tracker.engine.text import printable
from rulesets import registry
from rulesets.base import Ruleset
from rulesets.tables import parse_toml

SCHEMA_VERSION = 2
FIRST_SCHEMA = 1
MAX_HOUSE_RULES_BYTES = 1024 * 1024
# A campaign fight's campaign: a file name in the same folder, nothing more.
_CAMPAIGN = ("the name of a campaign file in the same folder (NAME.campaign.toml)", lambda v: isinstance(v, str) and (v == "" or (v.endswith(".campaign.toml") and "/" not in v and "\\" not in v and not v.startswith("."))))
# The players' app dice key (hex, 32 to 128 digits), or "" in a file made before it was kept.
_DICE_KEY = ("a key of 32 to 128 hex digits", lambda v: isinstance(v, str) and (v == "" or (32 <= len(v) <= 128 and all(ch in "0123456789abcdef" for ch in v))))


HEADER = (
    "# An encounter for segment-tracker. The setup comes first, then the event log;\n"
    "# each change is appended as [[events]] tables ending with a '# revision N' line.\n"
    "# Anything after the last '# revision N' line is an unfinished write and is ignored.\n"
)


def header_document(encounter: Encounter, house_rules: str = "") -> dict[str, Any]:
    """The header of `encounter`'s save as a TOML document (written after `HEADER`)."""
    setup = encounter.setup
    doc: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "name": setup.name, "ruleset": setup.ruleset}
    if house_rules:
        doc["house_rules"] = house_rules
    if setup.dice_key:
        doc["dice_key"] = setup.dice_key
    if setup.campaign:
        doc["campaign"] = setup.campaign
    doc["settings"] = dict(setup.settings)
    doc["roster"] = [entry.to_dict() for entry in setup.roster]
    return doc


@dataclass
class Opening:
    """What a save's header holds: everything but its events."""

    setup: Setup
    ruleset: Ruleset
    revision: int
    house_rules: str
    version: int


def read_header(doc: dict[str, Any], source: str, base_dir: Path | None) -> Opening:
    """The header of a parsed save, every key checked (its `events` are not read here)."""
    where = f"{source}:"
    version = need(doc, "schema_version", INT, where)
    if version not in (FIRST_SCHEMA, SCHEMA_VERSION):
        raise SaveError(f"{source}: schema_version: expected {FIRST_SCHEMA} or {SCHEMA_VERSION}, got {version} (a newer tracker wrote this file?)")
    revision = 0
    if version == FIRST_SCHEMA:
        revision = need(doc, "revision", INT, where)
        if revision < 0:
            raise SaveError(f"{source}: revision: expected an integer of at least 0, got {revision}")
    name = need(doc, "name", STR, where)
    ruleset_id = need(doc, "ruleset", STR, where)
    house_rules = doc.get("house_rules", "")
    check(f"{source}: house_rules", house_rules, STR)
    rules = house_rules_tables(house_rules, base_dir, source) if house_rules else None
    try:
        ruleset = registry.get(ruleset_id, rules)
    except TrackerError as exc:
        raise SaveError(f"{source}: ruleset: {exc}") from None
    try:
        # Every table read and checked now (house rows over shipped), so a bad house file
        # is reported as the save's problem, naming the file, not at the table's first use.
        ruleset.check_tables()
    except TrackerError as exc:
        named = f"house rules {house_rules}: " if house_rules else ""
        raise SaveError(f"{source}: ruleset: {named}{exc}") from None
    settings_raw = doc.get("settings", {})
    check(f"{source}: settings", settings_raw, TABLE)
    settings = as_save_error(lambda: ruleset.validate_settings(settings_raw, f"{source}: settings"))
    roster_raw = doc.get("roster", [])
    check(f"{source}: roster", roster_raw, ("an array of tables [[roster]]", lambda v: isinstance(v, list) and all(isinstance(x, dict) for x in v)))
    roster = [_roster_entry(ruleset, entry, f"{source}: roster[{i}]") for i, entry in enumerate(roster_raw)]
    dice_key = doc.get("dice_key", "")
    check(f"{source}: dice_key", dice_key, _DICE_KEY)
    campaign = doc.get("campaign", "")
    check(f"{source}: campaign", campaign, _CAMPAIGN)
    setup = Setup(name, ruleset_id, ruleset.time, ruleset.down_when, settings, roster, dice_key, campaign)
    return Opening(setup, ruleset, revision, house_rules, version)


def _roster_entry(ruleset: Ruleset, raw: dict[str, Any], where: str) -> CombatantSetup:
    name = need(raw, "name", STR, where)
    stats = raw.get("stats", {})
    resources = raw.get("resources", {})
    check(f"{where}.stats", stats, TABLE)
    check(f"{where}.resources", resources, TABLE)
    for key in raw:
        if key not in ("name", "stats", "resources", "side", "hidden", "surprised_until"):
            raise SaveError(f"{where}: unexpected key {key!r} (expected name, side, hidden, surprised_until, stats, resources)")
    check_numbers(raw, where)
    stats, resources = as_save_error(lambda: ruleset.check_sheet(stats, resources, where))
    side = raw.get("side", "")
    check(f"{where}.side", side, STR)
    hidden = raw.get("hidden", False)
    check(f"{where}.hidden", hidden, BOOL)
    surprised = raw.get("surprised_until", 0)
    check(f"{where}.surprised_until", surprised, INT)
    return CombatantSetup(name, stats, resources, side, hidden, surprised)


def house_rules_tables(house_rules: str, base_dir: Path | None, source: str) -> dict[str, Any]:
    """The tables of the house-rules file a save names: relative, inside the save's
    folder (a link may lead elsewhere in it, never out), a regular file of at most
    MAX_HOUSE_RULES_BYTES, read through the folder (tracker.persistence.folder)."""
    where = f"{source}: house_rules"
    if "\x00" in house_rules or house_rules != printable(house_rules):
        raise SaveError(f"{where}: expected a file name, got {shown(house_rules)}")
    pure = PurePosixPath(house_rules)
    if pure.is_absolute() or "\\" in house_rules or (len(house_rules) > 1 and house_rules[1] == ":"):
        raise SaveError(f"{where}: expected a path relative to the save's folder, got {shown(house_rules)}")
    if ".." in pure.parts:
        raise SaveError(f"{where}: expected a file inside the save's folder (no '..'), got {shown(house_rules)}")
    base = base_dir if base_dir is not None else Path(".")
    try:
        data = folder.read_bytes(Path(house_rules), MAX_HOUSE_RULES_BYTES, what="house rules file", folder=base)
    except folder.Refused as exc:
        raise SaveError(f"{where}: {exc}") from None
    except FileNotFoundError:
        raise SaveError(f"{where}: {base / pure}: file not found") from None
    except OSError as exc:
        raise SaveError(f"{where}: {base / pure}: cannot be read: {exc.strerror}") from None
    assert data is not None
    try:
        return parse_toml(data, base / pure)
    except TrackerError as exc:
        raise SaveError(f"{where}: {exc}") from None
