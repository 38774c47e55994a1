"""The user's config file as the app uses it: key names and themes as Textual knows them,
the bindings checked against the UI's command tables, the file applied to a new app,
and what the app's user picks (a theme, the roster mode) written back.

Reading and writing the file is tracker.persistence.config's; this is the part that
needs Textual. Decisions: docs/decisions/0008-config-file.md
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tracker.persistence.config import Config, ConfigError, refusal, check_ruleset, config_path, load, may_remember
from tracker.persistence import config as config_file

Tables = Sequence[Sequence[Any]]
"""The UI's command tables, one a screen (`tracker.ui.commands.tables()`): rows with a
`name` and default `keys`, the commands a key can be bound to."""


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
        raise refusal(config.path, "theme", config.theme, "one of " + ", ".join(sorted(theme_names())))
    if config.keys:
        if tables is not None:
            known = command_names(tables)
            for name in config.keys:
                if name not in known:
                    raise ConfigError(f"{config.path}: keys.{name}: unknown command (known: {', '.join(sorted(known))})")
        check_keys(config, tables or ())
    return config


def load_checked(tables: Tables) -> Config:
    return check_ruleset(check_ui(load(), tables))


def remember(key: str, value: str, path: Path | None = None, tables: Tables | None = None) -> Config:
    """`tracker.persistence.config.remember`, the file checked as `check_ui` does first
    (with the UI's command `tables`, the bindings against them)."""
    return config_file.remember(key, value, path, lambda written: check_ui(written, tables))


def remember_theme(theme: str, path: Path | None = None, tables: Tables | None = None) -> None:
    """Write `theme = "..."` into the config file, keeping everything else as written."""
    if load(path or config_path()).theme != theme:
        remember("theme", theme, path, tables)


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
