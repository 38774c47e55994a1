"""The user's config file: TOML in the user's config folder: reading it, checking what
needs no UI to check, and writing one setting back. The names only Textual knows (keys,
themes) and applying the file to an app are the UI's: tracker.ui.settings.

Where: `$TRACKER_CONFIG`, else `config.toml` in the platformdirs user config folder
(`~/.config/segment-tracker/config.toml` on Linux). `tracker config` prints the path and
what is set. Every key is optional; docs/guide/config.md lists them.

Decisions: docs/decisions/0008-config-file.md
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tracker.engine.errors import TrackerError
from tracker.persistence.paths import APP_NAME
from tracker.persistence import folder

VIEWER_RESOURCES = ("exact", "label", "hidden")
MAX_BYTES = 1024 * 1024  # a page of settings; anything bigger is not a config file
ROSTER_MODES = ("detail", "glance")
KNOWN = ("theme", "default_ruleset", "viewer_resources", "roster_mode", "keys")

class ConfigError(TrackerError):
    """The user's config file cannot be used; the message names the file and the key."""


@dataclass(frozen=True, slots=True)
class Config:
    """The config file's settings as read (`exists`: whether there was a file to read)."""

    path: Path
    exists: bool = False
    theme: str | None = None
    default_ruleset: str | None = None
    viewer_resources: str | None = None
    keys: dict[str, str] = field(default_factory=dict)
    roster_mode: str | None = None

    def settings(self) -> dict[str, Any]:
        """What is set, for `tracker config`."""
        out: dict[str, Any] = {}
        for name in ("theme", "default_ruleset", "viewer_resources", "roster_mode"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        if self.keys:
            out["keys"] = dict(self.keys)
        return out


def config_path() -> Path:
    env = os.environ.get("TRACKER_CONFIG")
    if env:
        return Path(env)
    from platformdirs import user_config_path

    return user_config_path(APP_NAME, appauthor=False) / "config.toml"


def refusal(path: Path, key: str, value: Any, what: str) -> ConfigError:
    return ConfigError(f"{path}: {key}: expected {what}, got {value!r}")


def read_text(path: Path) -> str | None:
    """The config file's text, None if there is none; read through its folder
    (tracker.persistence.folder): a link leading out of the folder, a FIFO, a device or
    a file over MAX_BYTES is refused by name, and never blocks the app."""
    try:
        data = folder.read_bytes(path, MAX_BYTES, what="config file", missing_ok=True)
        return None if data is None else data.decode("utf-8")
    except folder.Refused as exc:
        raise ConfigError(str(exc)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read: {getattr(exc, 'strerror', None) or exc}") from None


def load(path: Path | None = None) -> Config:
    """The config at `path` (default: `config_path()`); ConfigError names what is wrong."""
    path = path or config_path()
    text = read_text(path)
    if text is None:
        return Config(path)
    return parse(path, text)


def parse(path: Path, text: str) -> Config:
    """The config file's text checked for shape: ConfigError names the file and key."""
    import tomllib  # only when there is a config file to read

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    for key in data:
        if key not in KNOWN:
            raise ConfigError(f"{path}: {key}: unknown key (known: {', '.join(KNOWN)})")
    strings: dict[str, str | None] = {}
    for key in ("theme", "default_ruleset", "viewer_resources", "roster_mode"):
        value = data.get(key)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise refusal(path, key, value, "a non-empty string")
        strings[key] = value
    if strings["viewer_resources"] is not None and strings["viewer_resources"] not in VIEWER_RESOURCES:
        raise refusal(path, "viewer_resources", strings["viewer_resources"], "one of " + ", ".join(VIEWER_RESOURCES))
    if strings["roster_mode"] is not None and strings["roster_mode"] not in ROSTER_MODES:
        raise refusal(path, "roster_mode", strings["roster_mode"], "one of " + ", ".join(ROSTER_MODES))
    keys = data.get("keys", {})
    if not isinstance(keys, dict):
        raise refusal(path, "keys", keys, "a table of command = \"key,key\"")
    for name, value in keys.items():
        if not isinstance(value, str) or not [k for k in value.split(",") if k.strip()]:
            raise refusal(path, f"keys.{name}", value, 'Textual key names, comma separated (e.g. "n,space")')
    return Config(path, True, strings["theme"], strings["default_ruleset"], strings["viewer_resources"], dict(keys), strings["roster_mode"])


def check_ruleset(config: Config) -> Config:
    if config.default_ruleset is not None:
        from rulesets import registry

        if not registry.exists(config.default_ruleset):
            raise refusal(config.path, "default_ruleset", config.default_ruleset, "a ruleset id from `tracker rulesets`")
    return config


def remember(key: str, value: str, path: Path | None = None, check: Callable[[Config], Config] | None = None) -> Config:
    """Set one setting (`theme`, `keys.next`, ...) in the config file, keeping its
    comments, order and layout (tomlkit); returns the config as it now reads. `check`:
    what the file must also pass before it is written (the UI's names of keys, themes
    and commands: tracker.ui.settings)."""
    import tomlkit

    path = path or config_path()
    table, _, name = key.rpartition(".")
    if (table, name) != ("keys", name) and (table or name not in KNOWN or name == "keys"):
        raise ConfigError(f"{path}: {key}: unknown setting (known: theme, default_ruleset, viewer_resources, roster_mode, keys.COMMAND)")
    current = load(path)  # a bad file is never written over (raises ConfigError)
    text = (read_text(path) or "") if current.exists else ""
    document = tomlkit.parse(text)
    if table:
        if table not in document:
            document[table] = tomlkit.table()
        document[table][name] = value  # type: ignore[index,unused-ignore]  # older tomlkit types it as an Item
    else:
        document[name] = value
    updated = tomlkit.dumps(document)
    written = check_ruleset(parse(path, updated))  # never write what would not load
    if check is not None:
        written = check(written)
    _write_atomic(path, updated)
    return written


def _write_atomic(path: Path, text: str) -> None:
    """Replace the file atomically inside its folder (a fresh temporary file beside it,
    never one a link could stand for; a link leading out of the folder is refused)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        folder.replace(path, text.encode("utf-8"), what="config file")
    except folder.Refused as exc:
        raise ConfigError(str(exc)) from None


def may_remember(viewer: bool) -> bool:
    """Only a local app that may write keeps what its user picks."""
    return not (viewer or os.environ.get("TRACKER_READ_ONLY"))


_viewer_default: str | None = None


def forget_viewer_default() -> None:
    """Read the config's `viewer_resources` again at the next question (the file changed
    while the process runs)."""
    global _viewer_default
    _viewer_default = None


def default_viewer_resources() -> str:
    """How enemies' resources show to viewers in an encounter whose GM has not said:
    the config's `viewer_resources`, else "exact". Never raises (a bad config file is
    reported where the app starts); read once per process."""
    global _viewer_default
    if _viewer_default is None:
        try:
            _viewer_default = load().viewer_resources or "exact"
        except TrackerError:
            _viewer_default = "exact"
    return _viewer_default
