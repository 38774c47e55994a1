"""Data tables (charts, event charts, hit locations) as TOML beside each adapter.

A GM overrides them with a house-rules file of the same shape: each top-level table in
the override replaces the adapter's rows key by key (a row given replaces that row; rows
not given stay as shipped). Where an encounter names a house-rules file, the save's
loader reads it (through the save's folder, never through a link out of it) and hands
the parsed tables over; a path given here directly is read when the tables are first used.
"""

from __future__ import annotations

import os
import stat
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tracker.engine.errors import TrackerError


MAX_TABLES_BYTES = 1024 * 1024  # a house-rules file is a page of charts, not a disk


def read_toml(path: Path) -> dict[str, Any]:
    """Read a tables file: a regular file of at most MAX_TABLES_BYTES (a name pointing at
    a device or a pipe is refused before a byte is read), or a named error."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
        with open(fd, "rb") as handle:
            st = os.fstat(handle.fileno())
            if not stat.S_ISREG(st.st_mode):
                raise TrackerError(f"{path}: expected a regular file (not a device, folder or pipe)")
            data = handle.read(MAX_TABLES_BYTES + 1)
    except FileNotFoundError:
        raise TrackerError(f"{path}: file not found") from None
    except OSError as exc:
        raise TrackerError(f"{path}: cannot be read: {exc.strerror}") from None
    return parse_toml(data, path)


def parse_toml(data: bytes, path: Path) -> dict[str, Any]:
    """A tables file's bytes as tables, or an error naming `path` and what is wrong."""
    if len(data) > MAX_TABLES_BYTES:
        raise TrackerError(f"{path}: over {MAX_TABLES_BYTES // 1024} KB; a tables file that big is refused")
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise TrackerError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except RecursionError:
        raise TrackerError(f"{path}: values nested too deeply") from None
    except tomllib.TOMLDecodeError as exc:
        raise TrackerError(f"{path}: not valid TOML: {exc}") from None


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


def load_tables(shipped: Path, override: Path | Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The shipped tables with the house rules' rows over them (`override`: a file, or
    tables already read from one)."""
    tables = read_toml(shipped)
    if override is not None:
        tables = merge(tables, dict(override) if isinstance(override, Mapping) else read_toml(override))
    return tables
