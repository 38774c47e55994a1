"""Data tables (charts, event charts, hit locations) as TOML beside each adapter.

A GM overrides them with a house-rules file of the same shape: each top-level table in
the override replaces the adapter's rows key by key (a row given replaces that row; rows
not given stay as shipped). Where an encounter names a house-rules file, the save's
loader reads it (through the save's folder, never through a link out of it) and hands
the parsed tables over; a path given here directly is read when the tables are first used.

Decision: house tables are checked whole when they are loaded. The save's loader (and
`registry.get` given a house-rules path) calls the adapter's `Ruleset.check_tables`,
which reads every table the adapter uses, shipped rows with the GM's laid over, into
its typed form; the first table, row or field that is not what the rules need (a
table that is not a table, a row of the wrong type, a missing field, a die of fewer
than 2 sides, a negative time) refuses the whole file by name, so `tracker check`
says so and a fight never starts on a table that would fail at its first use. The
helpers below (`section`, `whole`, `number`) are the shared checks the adapters'
readers use.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from tracker.engine.errors import TrackerError
from tracker.engine.shapes import fits

_rtoml: ModuleType | None
try:  # the compiled reader, as for saves (docs/decisions/0045-opening-fast.md): a tenth of the time
    import rtoml as _rtoml
except ImportError:  # pragma: no cover - rtoml is a dependency; tomllib stays correct
    _rtoml = None



def toml_tables(text: str) -> tuple[dict[str, Any], bool]:
    """TOML text as tables, and whether `tomllib` read them: the compiled reader first (a
    save or a tables file); what it refuses, `tomllib` reads or refuses naming the problem
    (its TOMLDecodeError, or RecursionError). `tomllib` is imported only then: it builds its
    regexes when imported, 3-10 ms of a start whose files the compiled reader reads."""
    if _rtoml is not None:
        try:
            return _rtoml.loads(text), False
        except Exception:  # noqa: BLE001 - any refusal: tomllib names the problem
            pass
    import tomllib

    return tomllib.loads(text), True


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
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TrackerError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    try:
        tables, _ = toml_tables(text)
        return tables
    except RecursionError:
        raise TrackerError(f"{path}: values nested too deeply") from None
    except ValueError as exc:  # tomllib's TOMLDecodeError (tomllib is loaded only for a refusal)
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
        house = dict(override) if isinstance(override, Mapping) else read_toml(override)
        for key in house:
            # A misspelt table ([sphre]) would otherwise change nothing without a word.
            if key not in tables:
                where = "" if isinstance(override, Mapping) else f"{override}: "
                raise TrackerError(f"{where}[{key}]: expected one of the tables {', '.join(tables)} (no such table is read)")
        tables = merge(tables, house)
    return tables


# -- checks shared by the adapters' table readers ---------------------------------------
def section(tables: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
    """The table `key` of `tables` ({} when absent: its defaults apply), or a named
    error when the GM gave something else (`dice = 3` instead of `[dice]` rows)."""
    value = tables.get(key, {})
    if not isinstance(value, Mapping):
        raise TrackerError(f"{where}: expected a table of rows ([{key}] with key = value lines), got {value!r}")
    return value


def only(table: Mapping[str, Any], keys: tuple[str, ...], where: str, what: str = "row") -> None:
    """Refuse a row (or a row's field) the adapter would never read (a misspelt
    `stage_sise` would otherwise leave the shipped value in force without a word)."""
    for key in table:
        if key not in keys:
            raise TrackerError(f"{where}.{key}: expected one of {', '.join(keys)} (no such {what} is read)")


def row_number(key: Any) -> int | None:
    """A chart's row key as its number ("16", "-3", " 4 "), or None when it is not one:
    Python's int() would also take "1_0" as row 10 and "１２" (full-width digits) as 12."""
    text = str(key).strip()
    digits = text[1:] if text[:1] in ("+", "-") else text
    if not digits or not all("0" <= c <= "9" for c in digits):
        return None
    return int(text)


def whole(value: Any, where: str, minimum: int | None = None, maximum: int | None = None, what: str = "a whole number") -> int:
    """A whole number within [minimum, maximum] (either end open when None); true/false,
    text and fractions are refused by name rather than turned into a number. `what`
    names it in the refusal ("a die size")."""
    if isinstance(value, bool) or not isinstance(value, int) or not fits(value) or \
            (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise TrackerError(f"{where}: expected {_range(what, minimum, maximum)}, got {value!r}")
    return value


def number(value: Any, where: str, minimum: float | None = None, maximum: float | None = None) -> int | float:
    """A finite number (whole or not) within [minimum, maximum], else a named error."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not fits(value) or \
            (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise TrackerError(f"{where}: expected {_range('a number', minimum, maximum)}, got {value!r}")
    return value


def _range(what: str, minimum: float | None, maximum: float | None) -> str:
    low, high = _shown(minimum), _shown(maximum)
    if low and high:
        return f"{what} from {low} to {high}"
    if low:
        return f"{what} of at least {low}"
    if high:
        return f"{what} of at most {high}"
    return what


def _shown(bound: float | None) -> str:
    if bound is None:
        return ""
    return f"{bound:,}" if isinstance(bound, int) else f"{bound:g}"
