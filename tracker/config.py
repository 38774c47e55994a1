"""The user's config file: TOML in the user's config folder.

Where: `$TRACKER_CONFIG`, else `config.toml` in the platformdirs user config folder
(`~/.config/segment-tracker/config.toml` on Linux). `tracker config` prints the path and
what is set. Every key is optional; docs/guide/config.md lists them.

Decisions: docs/decisions/0008-config-file.md
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tracker.engine.errors import TrackerError
from tracker.paths import APP_NAME
from tracker.persistence import folder

VIEWER_RESOURCES = ("exact", "label", "hidden")
MAX_BYTES = 1024 * 1024  # a page of settings; anything bigger is not a config file
ROSTER_MODES = ("detail", "glance")
KNOWN = ("theme", "default_ruleset", "viewer_resources", "roster_mode", "keys")

Tables = Sequence[Sequence[Any]]
"""The UI's command tables, one a screen (`tracker.ui.commands.tables()`): rows with a
`name` and default `keys`, the commands a key can be bound to."""


class ConfigError(TrackerError):
    """The user's config file cannot be used; the message names the file and the key."""


@dataclass(frozen=True, slots=True)
class Config:
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


def _expect(path: Path, key: str, value: Any, what: str) -> ConfigError:
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
            raise _expect(path, key, value, "a non-empty string")
        strings[key] = value
    if strings["viewer_resources"] is not None and strings["viewer_resources"] not in VIEWER_RESOURCES:
        raise _expect(path, "viewer_resources", strings["viewer_resources"], "one of " + ", ".join(VIEWER_RESOURCES))
    if strings["roster_mode"] is not None and strings["roster_mode"] not in ROSTER_MODES:
        raise _expect(path, "roster_mode", strings["roster_mode"], "one of " + ", ".join(ROSTER_MODES))
    keys = data.get("keys", {})
    if not isinstance(keys, dict):
        raise _expect(path, "keys", keys, "a table of command = \"key,key\"")
    for name, value in keys.items():
        if not isinstance(value, str) or not [k for k in value.split(",") if k.strip()]:
            raise _expect(path, f"keys.{name}", value, 'Textual key names, comma separated (e.g. "n,space")')
    return Config(path, True, strings["theme"], strings["default_ruleset"], strings["viewer_resources"], dict(keys), strings["roster_mode"])


def command_names(tables: Tables) -> set[str]:
    """Every command a key can be bound to: the rows of the UI's command tables."""
    return {c.name for table in tables for c in table}


KEY_FORM = (
    'Textual key names, comma separated: a character (a, N, ?), a named key (space, enter, '
    'escape, tab, up, pageup, f5, full_stop, question_mark), with modifiers if any (ctrl+a, shift+tab, alt+x)'
)
MODIFIERS = ("ctrl", "shift", "alt", "meta", "super", "hyper")


def character_key(character: str) -> str:
    """The name Textual gives the key that types a printable `character`: a letter or
    digit itself, anything else its Unicode name in lower case with underscores (`?` ->
    question_mark), shortened as Textual's public KEY_NAME_REPLACEMENTS say (`/` ->
    slash). tests/test_textual_private.py checks it against the names Textual's key
    parser gives."""
    import unicodedata

    from textual.keys import KEY_NAME_REPLACEMENTS

    if character.isalnum():
        return character
    try:
        name = unicodedata.name(character).lower().replace("-", "_").replace(" ", "_")
    except ValueError:  # no Unicode name
        return character
    return KEY_NAME_REPLACEMENTS.get(name, name)


def _named_keys() -> frozenset[str]:
    """Key names Textual sends: its Keys (without modifiers), and the names it gives
    printable characters (`?` arrives as question_mark)."""
    from textual.keys import Keys

    names = {k.value.rpartition("+")[2] for k in Keys} | {"space"}
    names |= {character_key(chr(c)) for c in range(33, 127)}
    return frozenset(n for n in names if len(n) > 1)


def key_name(key: str) -> str | None:
    """`key` as Textual names it (`?` -> question_mark, `ctrl+a` as it is), None if it is not a key."""
    *mods, base = key.strip().split("+")
    if any(m not in MODIFIERS for m in mods) or len(set(mods)) != len(mods) or not base:
        return None
    if len(base) == 1:
        if not base.isprintable() or base.isspace():
            return None
        base = character_key(base)
    elif base not in _named_keys():
        return None
    return "+".join([*mods, base])


def check_keys(config: Config, tables: Tables) -> Config:
    """Every bound key is a key name, and no key runs two commands of one screen."""
    defaults = {c.name: c.keys for table in tables for c in table}
    for name, value in config.keys.items():
        for key in value.split(","):
            if key_name(key) is None:
                raise ConfigError(f"{config.path}: keys.{name}: {key.strip()!r} is not a key name; expected {KEY_FORM}")
    for table in tables:
        rows = [c for c in table if c.name in config.keys] + [c for c in table if c.name not in config.keys]
        owner: dict[str, str] = {}
        for command in rows:
            keys = config.keys.get(command.name, command.keys)
            for key in keys.split(","):
                named = key_name(key) or key.strip()
                other = owner.setdefault(named, command.name)
                if other == command.name or _shared_by_default(other, command.name, named, defaults):
                    continue
                if command.name in config.keys:
                    raise ConfigError(f"{config.path}: keys.{other} and keys.{command.name} both bind {key.strip()!r}; a key runs one command on a screen")
                raise ConfigError(
                    f"{config.path}: keys.{other}: {key.strip()!r} is already {command.name}'s key by default; "
                    f"choose another, or give {command.name} other keys too ([keys] {command.name} = \"...\")"
                )
    return config


def _shared_by_default(a: str, b: str, key: str, defaults: dict[str, str]) -> bool:
    """Two commands the tables themselves give one key (undo for the GM, take back for a player)."""
    def named(keys: str) -> set[str]:
        return {key_name(k) or k for k in keys.split(",")}

    return key in named(defaults[a]) and key in named(defaults[b])


def theme_names() -> set[str]:
    from textual.theme import BUILTIN_THEMES

    return set(BUILTIN_THEMES)


def check_ui(config: Config, tables: Tables | None) -> Config:
    """Names the UI must know: the theme and each bound command (of `tables`; None: a
    caller below the UI, which checks only that each bound key is a key name)."""
    if config.theme is not None and config.theme not in theme_names():
        raise _expect(config.path, "theme", config.theme, "one of " + ", ".join(sorted(theme_names())))
    if config.keys:
        if tables is not None:
            known = command_names(tables)
            for name in config.keys:
                if name not in known:
                    raise ConfigError(f"{config.path}: keys.{name}: unknown command (known: {', '.join(sorted(known))})")
        check_keys(config, tables or ())
    return config


def check_ruleset(config: Config) -> Config:
    if config.default_ruleset is not None:
        from rulesets import registry

        if not registry.exists(config.default_ruleset):
            raise _expect(config.path, "default_ruleset", config.default_ruleset, "a ruleset id from `tracker rulesets`")
    return config


def load_checked(tables: Tables) -> Config:
    return check_ruleset(check_ui(load(), tables))


def remember(key: str, value: str, path: Path | None = None, tables: Tables | None = None) -> Config:
    """Set one setting (`theme`, `keys.next`, ...) in the config file, keeping its
    comments, order and layout (tomlkit); returns the config as it now reads. With the
    UI's command `tables`, key bindings are checked against them as `check_ui` does."""
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
    written = check_ruleset(check_ui(parse(path, updated), tables))  # never write what would not load
    _write_atomic(path, updated)
    return written


def remember_theme(theme: str, path: Path | None = None, tables: Tables | None = None) -> None:
    """Write `theme = "..."` into the config file, keeping everything else as written."""
    if load(path or config_path()).theme != theme:
        remember("theme", theme, path, tables)


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


def apply(app: Any, viewer: bool, tables: Tables) -> None:
    """Theme, key bindings and roster mode from the config onto a new app (the CLI has
    checked it)."""
    app.roster_mode = "detail"
    try:
        config = check_ui(load(), tables)
    except ConfigError:
        return  # the CLI refused it before the app started; the app keeps its defaults
    app.roster_mode = config.roster_mode or "detail"
    if config.theme:
        app.theme = config.theme
    if config.keys:
        app.update_keymap(config.keys)


def roster_mode_changed(app: Any, mode: str, viewer: bool, tables: Tables) -> None:
    """The roster mode was switched (`g`): remember it, or say why not. Called off the
    event loop (it writes the file)."""
    if not may_remember(viewer):
        return
    try:
        if load().roster_mode != mode:
            remember("roster_mode", mode, tables=tables)
    except (ConfigError, OSError) as exc:
        app.call_from_thread(app.notify, f"roster mode not saved: {exc}", severity="warning")


def theme_changed(app: Any, theme: str, viewer: bool, tables: Tables) -> None:
    """The app's theme changed (the palette): remember it, or say why not."""
    if not may_remember(viewer):
        return
    try:
        remember_theme(theme, tables=tables)
    except (ConfigError, OSError) as exc:
        app.notify(f"theme not saved: {exc}", severity="warning")


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
