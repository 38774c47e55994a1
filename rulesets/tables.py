"""Data tables (charts, event charts, hit locations) as TOML beside each adapter.

A GM overrides them with a house-rules file of the same shape: each top-level table in
the override replaces the adapter's rows key by key (a row given replaces that row; rows
not given stay as shipped). Where an encounter names a house-rules file it is read once
when the ruleset is loaded.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from tracker.engine.errors import TrackerError


def read_toml(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        raise TrackerError(f"{path}: file not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise TrackerError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise TrackerError(f"{path}: cannot be read: {exc.strerror}") from None


def merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """Override rows of `base` with rows of `override`, one level of tables deep."""
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            merged = dict(out[key])
            merged.update(value)
            out[key] = merged
        else:
            out[key] = value
    return out


def load_tables(shipped: Path, override: Path | None = None) -> dict[str, Any]:
    tables = read_toml(shipped)
    if override is not None:
        tables = merge(tables, read_toml(override))
    return tables
