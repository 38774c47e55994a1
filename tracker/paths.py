"""Where encounter files live: `--saves DIR`, else $TRACKER_SAVES, else ./saves."""

from __future__ import annotations

import os
from pathlib import Path

SUFFIX = ".toml"


def saves_dir(option: str | None = None) -> Path:
    if option:
        return Path(option)
    env = os.environ.get("TRACKER_SAVES")
    return Path(env) if env else Path("saves")


def resolve(name: str, saves: Path, *, must_exist: bool = True) -> Path:
    """A FILE argument: a path as given if it exists (or has a folder part), else NAME[.toml] in the saves folder."""
    given = Path(name)
    if given.exists() or given.parent != Path("."):
        return given
    in_saves = saves / (name if name.endswith(SUFFIX) else name + SUFFIX)
    if in_saves.exists() or not must_exist:
        return in_saves
    return given


def encounter_files(saves: Path) -> list[Path]:
    if not saves.is_dir():
        return []
    return sorted(p for p in saves.iterdir() if p.suffix == SUFFIX and not p.name.startswith("."))
