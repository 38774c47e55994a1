"""Direct tests of tracker.ui.settings, worked from its docstrings and
docs/decisions/0008-config-file.md: key names as Textual knows them; every bound key a
key name, no key running two commands of one screen (save two the tables themselves give
one key); the theme and each bound command known; the file applied to a new app; a theme
or roster mode picked written back, only by an app that may write. Every refusal names
the file and the key, and says what was expected."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tracker.persistence.config import Config, ConfigError, load
from tracker.ui import settings
from tracker.ui.commands import tables
from tracker.ui.settings import (
    KEY_FORM, apply, character_key, check_keys, check_ui, command_names, key_name, load_checked, remember,
    remember_theme, roster_mode_changed, theme_changed, theme_names,
)


@dataclass(frozen=True)
class Row:
    name: str
    keys: str


SCREEN = (Row("next", "n,space"), Row("step", "full_stop"), Row("undo", "u"), Row("takeback", "u"))
OTHER = (Row("open", "o,enter"), Row("delete", "delete"))
TABLES = (SCREEN, OTHER)


@pytest.fixture
def config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "config.toml"
    monkeypatch.setenv("TRACKER_CONFIG", str(path))
    monkeypatch.delenv("TRACKER_READ_ONLY", raising=False)
    return path


def test_the_commands_a_key_can_be_bound_to_are_every_tables_rows() -> None:
    assert command_names(TABLES) == {"next", "step", "undo", "takeback", "open", "delete"}
    assert command_names(()) == set()


@pytest.mark.parametrize(
    ("character", "name"),
    [("a", "a"), ("N", "N"), ("7", "7"), ("é", "é"), ("?", "question_mark"), (".", "full_stop"), ("/", "slash"),
     ("\\", "backslash"), ("@", "at"), ("-", "minus"), ("+", "plus"), ("_", "underscore"), (" ", "space"),
     ("[", "left_square_bracket"), ("\x00", "\x00")],
)
def test_a_character_is_named_as_textual_names_its_key(character: str, name: str) -> None:
    assert character_key(character) == name


@pytest.mark.parametrize(
    ("key", "name"),
    [("a", "a"), (" ? ", "question_mark"), ("ctrl+a", "ctrl+a"), ("shift+tab", "shift+tab"), ("alt+?", "alt+question_mark"),
     ("f5", "f5"), ("pageup", "pageup"), ("space", "space"), ("full_stop", "full_stop"), ("ctrl+shift+up", "ctrl+shift+up"),
     ("meta+super+hyper+x", "meta+super+hyper+x"), ("enter", "enter"), ("backspace", "backspace"), ("escape", "escape"),
     ("!", "exclamation_mark"), ("exclamation_mark", "exclamation_mark"), ("ctrl+tilde", "ctrl+tilde")],
)
def test_a_key_is_named_as_textual_names_it(key: str, name: str) -> None:
    assert key_name(key) == name


@pytest.mark.parametrize("key", ["", " ", "ctrl+", "ctrl+ctrl+a", "foo+a", "nosuchkey", "ctrl+\t", "\x07", "+", "ab"])
def test_what_is_not_a_key_has_no_name(key: str) -> None:
    assert key_name(key) is None


def _config(path: Path, keys: dict[str, str] | None = None, theme: str | None = None) -> Config:
    return Config(path, True, theme=theme, keys=keys or {})


def test_a_bound_key_that_is_no_key_is_refused_by_file_and_key(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    with pytest.raises(ConfigError) as refused:
        check_keys(_config(path, {"next": "j, nosuch"}), TABLES)
    assert str(refused.value) == f"{path}: keys.next: 'nosuch' is not a key name; expected {KEY_FORM}"


def test_a_key_bound_to_two_commands_of_one_screen_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    with pytest.raises(ConfigError) as refused:
        check_keys(_config(path, {"next": "j", "step": "k,j"}), TABLES)
    assert str(refused.value) == f"{path}: keys.next and keys.step both bind 'j'; a key runs one command on a screen"
    # The same key under another name of it (? and question_mark) is the same key.
    with pytest.raises(ConfigError, match="keys.next and keys.step both bind 'question_mark'"):
        check_keys(_config(path, {"next": "?", "step": "question_mark"}), TABLES)


def test_a_key_bound_to_a_commands_default_key_says_how_to_free_it(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    with pytest.raises(ConfigError) as refused:
        check_keys(_config(path, {"next": "full_stop"}), TABLES)
    assert str(refused.value) == (
        f"{path}: keys.next: 'full_stop' is already step's key by default; "
        'choose another, or give step other keys too ([keys] step = "...")'
    )
    # Given other keys too, step frees its default.
    assert check_keys(_config(path, {"next": "full_stop", "step": "s"}), TABLES).keys == {"next": "full_stop", "step": "s"}


def test_keys_of_other_screens_and_keys_the_tables_share_are_allowed(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    # o on the start screen and on the encounter screen: two screens.
    assert check_keys(_config(path, {"next": "o"}), TABLES).keys == {"next": "o"}
    # undo and takeback share u by the tables' own choice.
    assert check_keys(_config(path, {"undo": "u"}), TABLES).keys == {"undo": "u"}
    assert check_keys(_config(path, {}), TABLES).keys == {}
    # ... but a new key for one of them that another takes is refused.
    with pytest.raises(ConfigError, match="keys.undo and keys.takeback both bind 'z'"):
        check_keys(_config(path, {"undo": "z", "takeback": "z"}), TABLES)


def test_two_commands_the_tables_give_one_key_share_it_however_it_is_spelled(tmp_path: Path) -> None:
    # The one key among others (u beside ctrl+z), or written as a character (?).
    tables_ = ((Row("undo", "ctrl+z,u"), Row("takeback", "u"), Row("help", "?"), Row("keys", "question_mark")),)
    path = tmp_path / "config.toml"
    assert check_keys(_config(path, {"undo": "u,ctrl+z"}), tables_).keys == {"undo": "u,ctrl+z"}
    assert check_keys(_config(path, {"help": "?"}), tables_).keys == {"help": "?"}


def test_the_shipped_tables_pass_with_no_config(tmp_path: Path) -> None:
    assert check_keys(_config(tmp_path / "c.toml"), tables()).keys == {}


def test_an_unknown_theme_is_refused_naming_the_known_ones(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    assert {"textual-dark", "nord", "gruvbox"} <= theme_names()
    with pytest.raises(ConfigError) as refused:
        check_ui(_config(path, theme="neon"), TABLES)
    assert str(refused.value) == f"{path}: theme: expected one of {', '.join(sorted(theme_names()))}, got 'neon'"
    assert check_ui(_config(path, theme="nord"), TABLES).theme == "nord"


def test_an_unknown_command_is_refused_naming_the_known_ones(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    with pytest.raises(ConfigError) as refused:
        check_ui(_config(path, {"jump": "j"}), TABLES)
    assert str(refused.value) == f"{path}: keys.jump: unknown command (known: delete, next, open, step, takeback, undo)"


def test_below_the_ui_only_the_key_names_are_checked(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    assert check_ui(_config(path, {"jump": "j", "hop": "j"}), None).keys == {"jump": "j", "hop": "j"}
    with pytest.raises(ConfigError, match=r"keys.jump: 'nosuch' is not a key name"):
        check_ui(_config(path, {"jump": "nosuch"}), None)
    with pytest.raises(ConfigError, match="keys.next and keys.step both bind 'j'"):
        check_ui(_config(path, {"next": "j", "step": "j"}), TABLES)


def test_the_file_is_checked_whole_as_the_app_loads_it(config_file: Path) -> None:
    config_file.write_text('theme = "nord"\ndefault_ruleset = "nosuch"\n')
    with pytest.raises(ConfigError, match="default_ruleset: expected a ruleset id"):
        load_checked(TABLES)
    config_file.write_text('theme = "nord"\n[keys]\nnext = "j"\n')
    assert load_checked(TABLES).keys == {"next": "j"}


class FakeApp:
    def __init__(self) -> None:
        self.roster_mode = "glance"
        self.theme = "textual-dark"
        self.keymaps: list[dict[str, str]] = []
        self.told: list[tuple[str, str]] = []

    def update_keymap(self, keymap: dict[str, str]) -> None:
        self.keymaps.append(dict(keymap))

    def notify(self, message: str, severity: str = "information") -> None:
        self.told.append((message, severity))

    def call_from_thread(self, call: Any, *args: Any, **kwargs: Any) -> None:
        call(*args, **kwargs)


def test_the_file_is_applied_to_a_new_app(config_file: Path) -> None:
    config_file.write_text('theme = "nord"\nroster_mode = "glance"\n[keys]\nnext = "j"\n')
    app = FakeApp()
    apply(app, False, TABLES)
    assert (app.roster_mode, app.theme, app.keymaps) == ("glance", "nord", [{"next": "j"}])


def test_no_file_or_a_refused_one_leaves_the_apps_defaults(config_file: Path) -> None:
    app = FakeApp()
    apply(app, False, TABLES)
    assert (app.roster_mode, app.theme, app.keymaps) == ("detail", "textual-dark", [])
    config_file.write_text('theme = "neon"\nroster_mode = "glance"\n')
    app = FakeApp()
    apply(app, True, TABLES)
    assert (app.roster_mode, app.theme, app.keymaps) == ("detail", "textual-dark", [])


def _writes(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Each write of the config file from here on (key, value), still made."""
    writes: list[tuple[str, str]] = []
    write = settings.remember

    def counted(key: str, value: str, *args: Any, **kwargs: Any) -> Config:
        writes.append((key, value))
        return write(key, value, *args, **kwargs)

    monkeypatch.setattr(settings, "remember", counted)
    return writes


def test_a_theme_picked_is_written_back_keeping_the_rest(config_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    writes = _writes(monkeypatch)
    config_file.write_text('# mine\nroster_mode = "glance"\n')
    remember_theme("nord")
    assert config_file.read_text() == '# mine\nroster_mode = "glance"\ntheme = "nord"\n'
    remember_theme("nord")  # the same theme again: the file is not written at all
    assert writes == [("theme", "nord")]


def test_a_file_named_is_the_one_read_and_written(config_file: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.toml"
    other.write_text('theme = "nord"\n')
    config_file.write_text('theme = "gruvbox"\n')
    remember_theme("nord", path=other)  # the file named already says nord: not written
    remember_theme("gruvbox", path=other)
    assert other.read_text() == 'theme = "gruvbox"\n'
    assert remember("keys.step", "k", path=other, tables=TABLES).keys == {"step": "k"}
    assert load(other).keys == {"step": "k"} and config_file.read_text() == 'theme = "gruvbox"\n'


def test_the_commands_bound_are_checked_against_the_tables_everywhere(config_file: Path) -> None:
    """An unknown command in the file is refused when the app loads it, leaves a new app
    at its defaults, and keeps a theme or a roster mode picked from being written."""
    config_file.write_text('roster_mode = "glance"\n[keys]\njump = "j"\n')
    with pytest.raises(ConfigError, match="keys.jump: unknown command"):
        load_checked(TABLES)
    app = FakeApp()
    apply(app, False, TABLES)
    assert (app.roster_mode, app.keymaps) == ("detail", [])
    with pytest.raises(ConfigError, match="keys.jump: unknown command"):
        remember_theme("nord", tables=TABLES)
    theme_changed(app, "nord", False, TABLES)
    roster_mode_changed(app, "detail", False, TABLES)
    assert [m.split(": ")[0] for m, _ in app.told] == ["theme not saved", "roster mode not saved"]
    assert all("keys.jump: unknown command" in m for m, _ in app.told)
    assert config_file.read_text() == 'roster_mode = "glance"\n[keys]\njump = "j"\n'


def test_what_is_written_back_is_checked_first_and_the_file_kept(config_file: Path) -> None:
    config_file.write_text('[keys]\nnext = "j"\n')
    with pytest.raises(ConfigError, match="keys.next and keys.step both bind 'j'"):
        remember("keys.step", "j", tables=TABLES)
    assert config_file.read_text() == '[keys]\nnext = "j"\n'
    with pytest.raises(ConfigError, match="theme: expected one of"):
        remember_theme("neon", tables=TABLES)
    assert remember("keys.step", "k", tables=TABLES).keys == {"next": "j", "step": "k"}


def test_the_roster_mode_switched_is_remembered_by_an_app_that_may_write(config_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = FakeApp()
    roster_mode_changed(app, "glance", True, TABLES)  # a viewer's: not kept
    assert not config_file.exists()
    monkeypatch.setenv("TRACKER_READ_ONLY", "1")
    roster_mode_changed(app, "glance", False, TABLES)
    assert not config_file.exists()
    monkeypatch.delenv("TRACKER_READ_ONLY")
    writes = _writes(monkeypatch)
    roster_mode_changed(app, "glance", False, TABLES)
    assert load().roster_mode == "glance" and app.told == []
    roster_mode_changed(app, "glance", False, TABLES)  # the same mode again: not written
    assert writes == [("roster_mode", "glance")] and app.told == []


def test_a_roster_mode_that_cannot_be_saved_is_said(config_file: Path) -> None:
    config_file.write_text('theme = "neon"\n')
    app = FakeApp()
    roster_mode_changed(app, "glance", False, TABLES)
    assert len(app.told) == 1
    message, severity = app.told[0]
    assert message.startswith(f"roster mode not saved: {config_file}: theme: expected one of") and severity == "warning"
    assert config_file.read_text() == 'theme = "neon"\n'


def test_a_theme_picked_is_remembered_by_an_app_that_may_write(config_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = FakeApp()
    theme_changed(app, "nord", True, TABLES)
    assert not config_file.exists()
    monkeypatch.setenv("TRACKER_READ_ONLY", "1")
    theme_changed(app, "nord", False, TABLES)
    assert not config_file.exists()
    monkeypatch.delenv("TRACKER_READ_ONLY")
    theme_changed(app, "nord", False, TABLES)
    assert load().theme == "nord" and app.told == []
    config_file.write_text('[keys]\nnext = "nosuch"\n')
    theme_changed(app, "gruvbox", False, TABLES)
    assert app.told == [(f"theme not saved: {config_file}: keys.next: 'nosuch' is not a key name; expected {KEY_FORM}", "warning")]
    assert config_file.read_text() == '[keys]\nnext = "nosuch"\n'


def test_a_file_that_cannot_be_written_is_said_not_raised(config_file: Path) -> None:
    config_file.mkdir()  # a folder where the file should be
    app = FakeApp()
    theme_changed(app, "nord", False, TABLES)
    roster_mode_changed(app, "glance", False, TABLES)
    assert [m.split(":")[0] for m, _ in app.told] == ["theme not saved", "roster mode not saved"]
