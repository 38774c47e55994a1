"""Where encounter files live: `--saves DIR`, else $TRACKER_SAVES, else ./saves."""

from __future__ import annotations

import os
import re
from pathlib import Path

SUFFIX = ".toml"


def saves_dir(option: str | None = None) -> Path:
    if option:
        return Path(option)
    env = os.environ.get("TRACKER_SAVES")
    return Path(env) if env else Path("saves")


def slug(name: str) -> str:
    """The file name (without .toml) an encounter titled `name` is saved under."""
    text = re.sub(r"[^a-z0-9]+", "-", name.casefold()).strip("-")
    return text or "encounter"


def resolve(name: str, saves: Path, *, must_exist: bool = True) -> Path:
    """A FILE argument: a path as given if it exists (or has a folder part), else NAME[.toml]
    in the saves folder, else the file an encounter titled NAME is saved under
    ("Ruined Temple BX" -> ruined-temple-bx.toml, as the start screen names it)."""
    given = Path(name)
    if given.exists() or given.parent != Path("."):
        return given
    in_saves = saves / (name if name.endswith(SUFFIX) else name + SUFFIX)
    if in_saves.exists():
        return in_saves
    by_title = saves / (slug(name.removesuffix(SUFFIX)) + SUFFIX)
    if by_title.exists():
        return by_title
    if not must_exist:
        return in_saves
    return given


def encounter_files(saves: Path) -> list[Path]:
    if not saves.is_dir():
        return []
    # library-<ruleset>.toml holds sheets, not an encounter (tracker.library).
    return sorted(p for p in saves.iterdir() if p.suffix == SUFFIX and not p.name.startswith((".", "library-")))
