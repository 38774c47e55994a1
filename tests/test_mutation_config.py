"""Direct tests of tracker.persistence.config: where the user's config file is, what it may
set, the refusal naming the file, the key and what was expected, and one setting written
back keeping the file's comments and layout (the module docstring;
docs/decisions/0008-config-file.md; docs/guide/config.md)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tracker.engine import TrackerError
from tracker.persistence import config
from tracker.persistence.config import (
    MAX_BYTES,
    Config,
    ConfigError,
    check_ruleset,
    config_path,
    default_viewer_resources,
    forget_viewer_default,
    load,
    may_remember,
    parse,
    read_text,
    remember,
)

KNOWN_KEYS = "theme, default_ruleset, viewer_resources, roster_mode, keys"
KNOWN_SETTINGS = "theme, default_ruleset, viewer_resources, roster_mode, keys.COMMAND"


@pytest.fixture
def cfg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """$TRACKER_CONFIG names a file in a folder of its own (not there yet)."""
    path = tmp_path / "conf" / "config.toml"
    monkeypatch.setenv("TRACKER_CONFIG", str(path))
    forget_viewer_default()
    yield path
    forget_viewer_default()


def _refused(path: Path, text: str) -> str:
    with pytest.raises(ConfigError) as refused:
        parse(path, text)
    return str(refused.value)


# ------------------------------------------------------------------ where
def test_the_file_is_tracker_config_else_config_toml_in_the_user_config_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACKER_CONFIG", "/dotfiles/tracker.toml")
    assert config_path() == Path("/dotfiles/tracker.toml")
    monkeypatch.setenv("TRACKER_CONFIG", "")  # empty: not set
    assert config_path() == Path(os.environ["XDG_CONFIG_HOME"]) / "segment-tracker" / "config.toml"
    monkeypatch.delenv("TRACKER_CONFIG")
    assert config_path() == Path(os.environ["XDG_CONFIG_HOME"]) / "segment-tracker" / "config.toml"


def test_a_missing_file_is_an_empty_config(cfg: Path) -> None:
    assert read_text(cfg) is None
    assert load() == Config(cfg)
    assert load(cfg) == Config(cfg, exists=False)
    empty = load()
    assert empty.settings() == {} and empty.keys == {} and empty.theme is None


# ------------------------------------------------------------------ what it may set
def test_every_setting_of_the_decisions_example_is_read(cfg: Path) -> None:
    text = (
        'theme = "nord"\ndefault_ruleset = "brandx"\nviewer_resources = "label"\nroster_mode = "glance"\n'
        '[keys]\nnext = "n,space"\ndeclare = "a,ctrl+a"\n'
    )
    cfg.parent.mkdir()
    cfg.write_text(text)
    read = load()
    assert read == Config(cfg, True, "nord", "brandx", "label", {"next": "n,space", "declare": "a,ctrl+a"}, "glance")
    assert list(read.settings().items()) == [
        ("theme", "nord"), ("default_ruleset", "brandx"), ("viewer_resources", "label"), ("roster_mode", "glance"),
        ("keys", {"next": "n,space", "declare": "a,ctrl+a"}),
    ]
    shown = read.settings()
    shown["keys"]["next"] = "x"
    assert read.keys["next"] == "n,space"  # what is shown is a copy


def test_settings_shows_only_what_is_set(tmp_path: Path) -> None:
    assert parse(tmp_path, 'roster_mode = "detail"').settings() == {"roster_mode": "detail"}
    assert parse(tmp_path, 'viewer_resources = "hidden"').settings() == {"viewer_resources": "hidden"}
    assert parse(tmp_path, '[keys]\nhelp = "f1"').settings() == {"keys": {"help": "f1"}}
    assert parse(tmp_path, "") == Config(tmp_path, True)


@pytest.mark.parametrize("mode", ["exact", "label", "hidden"])
def test_viewer_resources_is_exact_label_or_hidden(tmp_path: Path, mode: str) -> None:
    assert parse(tmp_path, f'viewer_resources = "{mode}"').viewer_resources == mode


@pytest.mark.parametrize("mode", ["detail", "glance"])
def test_roster_mode_is_detail_or_glance(tmp_path: Path, mode: str) -> None:
    assert parse(tmp_path, f'roster_mode = "{mode}"').roster_mode == mode


# ------------------------------------------------------------------ refusals name file, key, expected
def test_a_file_that_does_not_parse_is_refused_naming_the_file(tmp_path: Path) -> None:
    message = _refused(tmp_path / "c.toml", "theme = ")
    assert message.startswith(f"{tmp_path / 'c.toml'}: not valid TOML: ")
    assert message.endswith("Invalid value (at end of document)")  # tomllib's own words


def test_an_unknown_key_is_refused_with_the_known_ones(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    assert _refused(path, 'theme = "nord"\ncolour = "red"') == f"{path}: colour: unknown key (known: {KNOWN_KEYS})"


@pytest.mark.parametrize("key", ["theme", "default_ruleset", "viewer_resources", "roster_mode"])
@pytest.mark.parametrize(("value", "shown"), [("3", "3"), ('""', "''"), ('"  "', "'  '"), ("true", "True")])
def test_a_setting_that_is_not_words_is_refused(tmp_path: Path, key: str, value: str, shown: str) -> None:
    path = tmp_path / "c.toml"
    assert _refused(path, f"{key} = {value}") == f"{path}: {key}: expected a non-empty string, got {shown}"


def test_viewer_resources_and_roster_mode_name_their_choices(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    assert _refused(path, 'viewer_resources = "Label"') == f"{path}: viewer_resources: expected one of exact, label, hidden, got 'Label'"
    assert _refused(path, 'roster_mode = "wide"') == f"{path}: roster_mode: expected one of detail, glance, got 'wide'"


def test_keys_must_be_a_table_of_key_names(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    assert _refused(path, 'keys = "n"') == f"{path}: keys: expected a table of command = \"key,key\", got 'n'"
    expected = 'Textual key names, comma separated (e.g. "n,space")'
    assert _refused(path, '[keys]\nnext = 5') == f"{path}: keys.next: expected {expected}, got 5"
    assert _refused(path, '[keys]\nnext = ""') == f"{path}: keys.next: expected {expected}, got ''"
    assert _refused(path, '[keys]\nnext = " , ,"') == f"{path}: keys.next: expected {expected}, got ' , ,'"
    assert parse(path, '[keys]\nnext = " ,n"').keys == {"next": " ,n"}  # one key is enough


def test_a_refusal_is_a_tracker_error_naming_file_key_expected_and_value(tmp_path: Path) -> None:
    refused = config.refusal(tmp_path, "theme", ["x"], "a theme")
    assert isinstance(refused, TrackerError)
    assert str(refused) == f"{tmp_path}: theme: expected a theme, got ['x']"


def test_the_default_ruleset_must_be_installed(tmp_path: Path) -> None:
    fine = parse(tmp_path, 'default_ruleset = "ogs"')
    assert check_ruleset(fine) is fine
    nothing = parse(tmp_path, "")
    assert check_ruleset(nothing) is nothing
    with pytest.raises(ConfigError) as refused:
        check_ruleset(parse(tmp_path, 'default_ruleset = "chess"'))
    assert str(refused.value) == f"{tmp_path}: default_ruleset: expected a ruleset id from `tracker rulesets`, got 'chess'"


# ------------------------------------------------------------------ reading through the folder
def test_a_file_that_is_not_utf8_or_is_a_folder_cannot_be_read(cfg: Path) -> None:
    cfg.parent.mkdir()
    cfg.write_bytes(b'theme = "\xff"')
    with pytest.raises(ConfigError) as refused:
        load()
    assert str(refused.value).startswith(f"{cfg}: cannot be read: ")
    assert "utf-8" in str(refused.value)


def test_a_link_out_of_the_folder_a_fifo_or_a_big_file_is_refused_by_name(cfg: Path, tmp_path: Path) -> None:
    cfg.parent.mkdir()
    outside = tmp_path / "outside.toml"
    outside.write_text('theme = "nord"')
    cfg.symlink_to(outside)
    with pytest.raises(ConfigError) as link:
        load()
    assert str(link.value).startswith(f"{cfg}: is a symbolic link leading outside {cfg.parent}")
    cfg.unlink()
    os.mkfifo(cfg)
    with pytest.raises(ConfigError) as fifo:
        read_text(cfg)
    assert str(fifo.value) == f"{cfg}: expected a regular config file, found a FIFO; it is not opened"
    cfg.unlink()
    cfg.write_text("#" * MAX_BYTES)
    assert read_text(cfg) == "#" * MAX_BYTES  # a page of settings at most: exactly the limit reads
    cfg.write_text("#" * (MAX_BYTES + 1))
    with pytest.raises(ConfigError) as big:
        read_text(cfg)
    assert str(big.value).startswith(f"{cfg}: 1,048,577 bytes (1 MB); config files over 1,048,576 bytes (1 MB) are refused")
    assert MAX_BYTES == 1024 * 1024


def test_an_unreadable_file_names_the_reason(cfg: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def denied(*args: object, **kwargs: object) -> bytes:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(config.folder, "read_bytes", denied)
    with pytest.raises(ConfigError) as refused:
        read_text(cfg)
    assert str(refused.value) == f"{cfg}: cannot be read: Permission denied"


# ------------------------------------------------------------------ remembering one setting
def test_a_setting_is_written_back_keeping_comments_order_and_layout(cfg: Path) -> None:
    cfg.parent.mkdir()
    cfg.write_text('# mine\ntheme   = "nord"   # the dark one\n\n[keys]\nnext = "n"  # fast\n')
    after = remember("theme", "dracula")
    assert cfg.read_text() == '# mine\ntheme   = "dracula"   # the dark one\n\n[keys]\nnext = "n"  # fast\n'
    assert after == Config(cfg, True, theme="dracula", keys={"next": "n"})
    remember("keys.declare", "a,ctrl+a")
    assert cfg.read_text() == '# mine\ntheme   = "dracula"   # the dark one\n\n[keys]\nnext = "n"  # fast\ndeclare = "a,ctrl+a"\n'


def test_the_first_setting_makes_the_file_and_its_folder(cfg: Path) -> None:
    after = remember("keys.next", "n,space")
    assert after == Config(cfg, True, keys={"next": "n,space"})
    assert load() == after
    assert remember("roster_mode", "glance", cfg).roster_mode == "glance"
    assert load().settings() == {"roster_mode": "glance", "keys": {"next": "n,space"}}


def test_a_new_top_level_setting_and_a_new_keys_table_go_at_the_end(cfg: Path) -> None:
    cfg.parent.mkdir()
    cfg.write_text('theme = "nord"\n')
    remember("viewer_resources", "label")
    remember("keys.help", "f1")
    assert load().settings() == {"theme": "nord", "viewer_resources": "label", "keys": {"help": "f1"}}
    assert cfg.read_text().index("viewer_resources") < cfg.read_text().index("[keys]")


@pytest.mark.parametrize("key", ["colour", "keys", "view.theme", "settings.next"])
def test_only_known_settings_and_keys_commands_may_be_set(cfg: Path, key: str) -> None:
    with pytest.raises(ConfigError) as refused:
        remember(key, "x")
    assert str(refused.value) == f"{cfg}: {key}: unknown setting (known: {KNOWN_SETTINGS})"
    assert not cfg.exists()


def test_what_would_not_load_is_never_written(cfg: Path) -> None:
    cfg.parent.mkdir()
    cfg.write_text('theme = "nord"\n')
    with pytest.raises(ConfigError, match="viewer_resources: expected one of exact, label, hidden, got 'all'"):
        remember("viewer_resources", "all")
    with pytest.raises(ConfigError, match="default_ruleset: expected a ruleset id"):
        remember("default_ruleset", "chess")
    with pytest.raises(ConfigError, match="keys.next: expected Textual key names"):
        remember("keys.next", ",")
    assert cfg.read_text() == 'theme = "nord"\n'
    assert remember("default_ruleset", "d6").default_ruleset == "d6"


def test_a_bad_file_is_never_written_over(cfg: Path) -> None:
    cfg.parent.mkdir()
    cfg.write_text('colour = "red"\n')
    with pytest.raises(ConfigError, match="colour: unknown key"):
        remember("theme", "nord")
    assert cfg.read_text() == 'colour = "red"\n'


def test_the_callers_check_runs_on_what_would_be_written(cfg: Path) -> None:
    seen: list[Config] = []

    def ui_check(read: Config) -> Config:
        seen.append(read)
        if read.theme == "nope":
            raise ConfigError("no such theme")
        return Config(read.path, True, "checked")

    assert remember("theme", "nord", check=ui_check) == Config(cfg, True, "checked")
    assert seen == [Config(cfg, True, "nord")]
    with pytest.raises(ConfigError, match="no such theme"):
        remember("theme", "nope", check=ui_check)
    assert load().theme == "nord"


def test_a_config_that_is_a_link_out_is_never_written_through(cfg: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg.parent.mkdir()
    outside = tmp_path / "outside.toml"
    outside.write_text("")
    monkeypatch.setattr(config, "load", lambda path=None: Config(cfg))  # past the read, to the write
    cfg.symlink_to(outside)
    with pytest.raises(ConfigError) as refused:
        remember("theme", "nord")
    assert str(cfg) in str(refused.value)
    assert outside.read_text() == ""


# ------------------------------------------------------------------ who remembers, the viewer default
def test_only_a_local_app_that_may_write_remembers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRACKER_READ_ONLY", raising=False)
    assert may_remember(False) is True
    assert may_remember(True) is False
    monkeypatch.setenv("TRACKER_READ_ONLY", "1")
    assert may_remember(False) is False
    monkeypatch.setenv("TRACKER_READ_ONLY", "")
    assert may_remember(False) is True


def test_viewers_see_the_configs_resources_else_exact_read_once(cfg: Path) -> None:
    assert default_viewer_resources() == "exact"
    cfg.parent.mkdir()
    cfg.write_text('viewer_resources = "label"\n')
    assert default_viewer_resources() == "exact"  # read once per process
    forget_viewer_default()
    assert default_viewer_resources() == "label"
    cfg.write_text('viewer_resources = "hidden"\n')
    assert default_viewer_resources() == "label"
    forget_viewer_default()
    assert default_viewer_resources() == "hidden"


def test_a_bad_config_leaves_viewers_with_exact_and_never_raises(cfg: Path) -> None:
    cfg.parent.mkdir()
    cfg.write_text("viewer_resources = 3\n")
    assert default_viewer_resources() == "exact"
    cfg.write_text('theme = "nord"\n')
    forget_viewer_default()
    assert default_viewer_resources() == "exact"  # set nowhere
    assert config._viewer_default == "exact"


def test_a_bad_file_named_by_the_caller_is_never_written_over(cfg: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.toml"
    other.write_text('colour = "red"\n')
    with pytest.raises(ConfigError, match="colour: unknown key"):
        remember("theme", "nord", other)  # checked where it is written, not at TRACKER_CONFIG
    assert other.read_text() == 'colour = "red"\n'


def test_an_empty_file_takes_its_first_setting(cfg: Path) -> None:
    cfg.parent.mkdir()
    cfg.write_text("")
    assert remember("theme", "nord") == Config(cfg, True, "nord")
    assert cfg.read_text() == 'theme = "nord"\n'


def test_a_setting_in_a_config_folder_not_there_yet_makes_every_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    deep = tmp_path / "home" / "dotfiles" / "tracker" / "config.toml"
    monkeypatch.setenv("TRACKER_CONFIG", str(deep))
    remember("theme", "nord")
    assert load() == Config(deep, True, "nord")


def test_a_fifo_at_the_configs_name_is_never_written_through(cfg: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg.parent.mkdir()
    os.mkfifo(cfg)
    monkeypatch.setattr(config, "load", lambda path=None: Config(cfg))  # past the read, to the write
    with pytest.raises(ConfigError) as refused:
        remember("theme", "nord")
    assert str(refused.value) == f"{cfg}: expected a regular config file, found something else (a FIFO, device or folder); it is not replaced"
