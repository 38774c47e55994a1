"""A per-ruleset library of sheets, and new encounters made from another's roster.

The library (a decision the brief leaves open) is one TOML file per ruleset in the saves
folder, `library-<ruleset>.toml`, so it travels with the encounters that use it and a
group-shared saves folder shares it too. Its name does not end in an encounter's
pattern: the start screen and `tracker open` skip files starting with `library-`.

    [sheets.Goblin]              # the entry's name, as typed
    side = "foe"                 # optional
    stats = { ... }              # as the ruleset's sheet holds them
    resources = { ... }          # starting values (full health)

Decisions: docs/decisions/0026-sheet-library.md
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tracker.engine import CombatantSetup, Encounter, Setup, TrackerError
from tracker.engine import bounds
from tracker.persistence import folder
from tracker.persistence.lock import locked
from tracker.engine.text import check_name, refuse_controls, refuse_lookalike

PREFIX = "library-"
MAX_BYTES = 4 * 1024 * 1024


def library_path(folder: Path, ruleset_id: str) -> Path:
    safe = re.sub(r"[^a-z0-9_-]+", "-", ruleset_id.casefold()).strip("-") or "rules"
    return folder / f"{PREFIX}{safe}.toml"


@dataclass(slots=True)
class Sheet:
    """One library entry: what `add` needs to bring the combatant in."""

    name: str
    side: str = ""
    stats: dict[str, Any] = field(default_factory=dict)
    resources: dict[str, Any] = field(default_factory=dict)

    def values(self) -> dict[str, Any]:
        return {**self.stats, **self.resources}

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.side:
            data["side"] = self.side
        data["stats"] = dict(self.stats)
        data["resources"] = dict(self.resources)
        return data


class Library:
    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def in_folder(cls, folder: Path, ruleset_id: str) -> "Library":
        """The library of `ruleset_id` in a saves folder (a save's `path.parent`)."""
        return cls(library_path(folder, ruleset_id))

    def _read(self) -> dict[str, Any]:
        try:
            data = folder.read_bytes(self.path, MAX_BYTES, what="library", missing_ok=True)
            if data is None:
                return {}
            text = data.decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise TrackerError(f"{self.path}: cannot be read: {exc}") from None
        import tomllib

        try:
            doc = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, RecursionError) as exc:
            raise TrackerError(f"{self.path}: not valid TOML: {exc}") from None
        sheets = doc.get("sheets", {})
        if not isinstance(sheets, dict):
            raise TrackerError(f"{self.path}: sheets: expected a table of sheets")
        return sheets

    def names(self) -> list[str]:
        return sorted(self._read(), key=str.casefold)

    def get(self, name: str) -> Sheet:
        sheets = self._read()
        raw = sheets.get(name)
        if raw is None:
            folded = {k.casefold(): k for k in sheets}
            key = folded.get(name.casefold())
            raw = sheets.get(key) if key is not None else None
            name = key or name
        if raw is None:
            known = ", ".join(sorted(sheets, key=str.casefold)) or "none yet: `library save NAME`"
            raise TrackerError(f"{self.path}: no sheet named {name!r} (sheets: {known})")
        where = f"{self.path}: sheets.{name}"
        if not isinstance(raw, dict):
            raise TrackerError(f"{where}: expected a table")
        side, stats, resources = raw.get("side", ""), raw.get("stats", {}), raw.get("resources", {})
        if not isinstance(side, str):
            raise TrackerError(f"{where}.side: expected text, got {side!r}")
        if not isinstance(stats, dict) or not isinstance(resources, dict):
            raise TrackerError(f"{where}: stats and resources must be tables")
        for key in raw:
            if key not in ("side", "stats", "resources"):
                raise TrackerError(f"{where}: unexpected key {key!r} (expected side, stats, resources)")
        refuse_controls(name, f"{where}: name")
        refuse_controls(side, f"{where}.side")
        for key, value in {**stats, **resources}.items():
            refuse_controls(str(key), f"{where}: key")
            if isinstance(value, str):
                refuse_controls(value, f"{where}.{key}")
            else:
                bounds.value(value, f"{where}.{key}")
        return Sheet(name, side, dict(stats), dict(resources))

    def put(self, sheet: Sheet) -> None:
        check_name(sheet.name, "library: sheet name")
        if not sheet.name.strip():
            raise TrackerError("library: a sheet needs a name")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with locked(self.path, create=True):
            sheets = self._read()
            for key in list(sheets):
                if key.casefold() == sheet.name.casefold():
                    del sheets[key]  # saving again replaces the entry
            refuse_lookalike(sheet.name, sheets, "library: sheet name", f"a sheet in {self.path.name}")
            sheets[sheet.name] = sheet.to_dict()
            ordered = dict(sorted(sheets.items(), key=lambda kv: kv[0].casefold()))
            self._write({"sheets": ordered})

    def delete(self, name: str) -> None:
        if not folder.exists(self.path):  # no library yet: nothing to lock (no lock file is made for it)
            raise TrackerError(f"{self.path}: no sheet named {name!r}")
        with locked(self.path):
            sheets = self._read()
            found = [k for k in sheets if k.casefold() == name.casefold()]
            if not found:
                raise TrackerError(f"{self.path}: no sheet named {name!r}")
            for key in found:
                del sheets[key]
            self._write({"sheets": sheets})

    def _write(self, doc: dict[str, Any]) -> None:
        try:
            import tomli_w  # only when the library is written: not at the app's start

            folder.replace(self.path, tomli_w.dumps(doc).encode("utf-8"), what="library")
        except OSError as exc:
            raise TrackerError(f"{self.path}: cannot be written: {exc.strerror or exc}") from None


def sheet_of(encounter: Encounter, name: str, entry: str | None = None) -> Sheet:
    """A combatant's sheet as a library entry: its stats, resources at their starting values."""
    c = encounter.combatant(name)
    return Sheet(entry or c.name, c.side, dict(c.stats), dict(c.maxima))


def roster_of(encounter: Encounter) -> list[CombatantSetup]:
    """The combatants present now, as a fresh roster (docs/decisions/0026-sheet-library.md)."""
    return [CombatantSetup(c.name, dict(c.stats), dict(c.maxima), c.side, c.hidden) for c in encounter.combatants.values()]


def new_from_roster(source: Path, path: Path, name: str) -> Path:
    """Write a new encounter at `path` titled `name` with `source`'s roster and no log."""
    from tracker.persistence.store import EncounterFile

    from tracker.persistence.header import house_rules_tables

    refuse_controls(name, "name")
    loaded = EncounterFile(source).load()
    rules = loaded.house_rules
    if rules and path.parent.resolve() != source.parent.resolve():
        # The new save names the same file, read beside it: it must be there and the same,
        # or the new encounter would not load (or would play by other rules).
        try:
            there = house_rules_tables(rules, path.parent, str(path))
        except TrackerError:
            there = None
        if there != house_rules_tables(rules, source.parent, str(source)):
            missing = "is not" if there is None else "is different"
            raise TrackerError(
                f"{path}: {source.name} plays by the house rules {rules}, which {missing} in {path.parent}: "
                f"copy {source.parent / rules} there first, or create the encounter in {source.parent}"
            )
    old = loaded.encounter.setup
    setup = Setup(name, old.ruleset, old.time, old.down_when, dict(old.settings), roster_of(loaded.encounter))
    EncounterFile._write_new(path, Encounter(setup), loaded.house_rules)
    return path
