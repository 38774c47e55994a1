"""Installed like a tool: version, saves folder, worked examples, config file, completion,
export and the browser view (issue 13)."""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

from tests.helpers import cli as run
from tracker import config, paths
from tests.ui import settle

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(p.name for p in (ROOT / "saves").glob("*.toml"))


@pytest.fixture
def nowhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A current folder with no saves/ and no TRACKER_SAVES: the user data folder applies."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TRACKER_SAVES", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path


@pytest.fixture
def config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "conf" / "config.toml"
    monkeypatch.setenv("TRACKER_CONFIG", str(path))
    return path


# ---------------------------------------------------------------- version
def test_version_comes_from_the_package_metadata(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("--version")[0] == 0
    assert capsys.readouterr().out.strip() == f"tracker {importlib.metadata.version('segment-tracker')}"


# ---------------------------------------------------------------- saves folder
def test_saves_folder_order(nowhere: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    user = nowhere / "data" / "segment-tracker" / "saves"
    assert paths.locate() == paths.Saves(user, "user data folder")
    (nowhere / "saves").mkdir()
    assert paths.locate() == paths.Saves(Path("saves"), "./saves")
    monkeypatch.setenv("TRACKER_SAVES", str(nowhere / "env"))
    assert paths.locate().source == "TRACKER_SAVES"
    assert paths.locate("given") == paths.Saves(Path("given"), "--saves")


def test_saves_option_before_or_after_the_command(nowhere: Path) -> None:
    assert run("--saves", "before", "new", "a", "--ruleset", "freeform")[0] == 0
    assert run("new", "b", "--ruleset", "freeform", "--saves", "after")[0] == 0
    assert (nowhere / "before" / "a.toml").is_file() and (nowhere / "after" / "b.toml").is_file()
    assert run("show", "b", "--saves", "after")[0] == 0
    # given before and after: the one after the command is nearer, and wins
    assert run("--saves", "before", "check", "b", "--saves", "after")[0] == 0


def test_user_data_folder_starts_with_the_worked_examples(nowhere: Path) -> None:
    place = paths.locate()
    folder = paths.prepare(place)
    assert sorted(p.name for p in paths.encounter_files(folder)) == EXAMPLES
    # never again: a user who deleted an example does not get it back unasked
    (folder / EXAMPLES[0]).unlink()
    paths.prepare(place)
    assert not (folder / EXAMPLES[0]).exists()


def test_a_folder_the_user_named_is_never_filled_unasked(tmp_path: Path) -> None:
    named = tmp_path / "mine"
    assert paths.prepare(paths.Saves(named, "--saves")) == named
    assert not named.exists()


def test_examples_command_copies_and_keeps(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "table"
    code, out = run("examples", "--saves", str(folder))
    assert code == 0 and out.count("copied") == len(EXAMPLES)
    (folder / "seraph-vs-sphinx.toml").write_text("mine", encoding="utf-8")
    code, out = run("examples", "--saves", str(folder))
    assert out.count("kept") == len(EXAMPLES)
    assert (folder / "seraph-vs-sphinx.toml").read_text(encoding="utf-8") == "mine"
    code, out = run("examples", "--force", "--saves", str(folder))
    assert (folder / "seraph-vs-sphinx.toml").read_bytes() == (ROOT / "saves" / "seraph-vs-sphinx.toml").read_bytes()
    for name in EXAMPLES:  # every copy opens
        assert run("check", str(folder / name))[0] == 0


@pytest.mark.slow
def test_the_built_package_carries_the_examples(tmp_path: Path) -> None:
    """A wheel (pipx, uv tool) has no clone beside it: the examples are package data.

    Built as pipx and uv build it (PEP 517, setuptools fetched into an isolated build
    environment: Python 3.12's venvs hold no setuptools), then unpacked as an installer
    would unpack it."""
    work = tmp_path / "src"
    ignored = (".venv", ".git", "*.egg-info", "__pycache__", "build", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis")
    shutil.copytree(ROOT, work, ignore=shutil.ignore_patterns(*ignored))
    wheels = tmp_path / "wheels"
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(work)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    [wheel] = wheels.glob("segment_tracker-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(tmp_path / "lib")
    shipped = tmp_path / "lib" / "tracker" / "examples"
    assert sorted(p.name for p in shipped.glob("*.toml")) == EXAMPLES
    code = "import tracker.paths as p; print(p.examples_dir())"
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "lib"))
    found = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert Path(found.stdout.strip()) == shipped, found.stderr


# ---------------------------------------------------------------- config
def test_config_missing_is_all_defaults(config_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert config.load() == config.Config(config_file)
    code, out = run("config")
    assert code == 0 and str(config_file) in out and "not there yet" in out


def test_config_shows_what_is_set(config_file: Path) -> None:
    config_file.parent.mkdir(parents=True)
    config_file.write_text('theme = "nord"\ndefault_ruleset = "d6"\nviewer_resources = "label"\n[keys]\nnext = "j,space"\n', encoding="utf-8")
    code, out = run("config", "--json")
    data = json.loads(out)
    assert code == 0 and data["path"] == str(config_file)
    assert data["settings"] == {"theme": "nord", "default_ruleset": "d6", "viewer_resources": "label", "keys": {"next": "j,space"}}
    code, out = run("config")
    assert "theme = 'nord'" in out and "keys.next = 'j,space'" in out


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("theme = ", "not valid TOML"),
        ("colour = 'red'", "colour: unknown key"),
        ("viewer_resources = 'blurred'", "viewer_resources: expected one of exact, label, hidden"),
        ("theme = 3", "theme: expected a non-empty string"),
        ("theme = 'no-such-theme'", "theme: expected one of"),
        ("[keys]\nfly = 'f'", "keys.fly: unknown command"),
        ("[keys]\nnext = ''", "keys.next: expected Textual key names"),
        ("keys = 'n'", "keys: expected a table"),
        ("default_ruleset = 'chess'", "default_ruleset: expected a ruleset id"),
    ],
)
def test_a_bad_config_file_is_named_never_a_crash(config_file: Path, capsys: pytest.CaptureFixture[str], text: str, named: str) -> None:
    config_file.parent.mkdir(parents=True)
    config_file.write_text(text, encoding="utf-8")
    before = config_file.read_bytes()
    assert run("config")[0] == 1
    err = capsys.readouterr().err
    assert f"{config_file}: " in err and named in err and "Traceback" not in err
    # the app refuses to start on it with the same words, and nothing is written
    assert run("open", "--saves", str(config_file.parent))[0] == 1
    assert named in capsys.readouterr().err
    assert config_file.read_bytes() == before
    try:
        config.load()
    except config.ConfigError:  # a file that does not read is never written over
        with pytest.raises(config.ConfigError):
            config.remember_theme("nord")
        assert config_file.read_bytes() == before


def test_new_takes_the_default_ruleset(config_file: Path, saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("new", "a")[0] == 2
    assert "--ruleset is required" in capsys.readouterr().err
    config_file.parent.mkdir(parents=True)
    config_file.write_text('default_ruleset = "ore"\n', encoding="utf-8")
    assert run("new", "a")[0] == 0
    assert run("check", "a", "--json")[1].count('"ore"') == 1


def test_remembering_a_theme_keeps_every_other_line(config_file: Path) -> None:
    config.remember_theme("nord")
    assert config.load().theme == "nord"
    config_file.write_text('# my settings\ntheme = "nord"  # dark\ndefault_ruleset = "d6"\n[keys]\ntheme = "x"\n', encoding="utf-8")
    config.remember_theme("gruvbox")
    text = config_file.read_text(encoding="utf-8")
    assert text.startswith("# my settings\ntheme = \"gruvbox\"\n")
    assert 'default_ruleset = "d6"' in text and '[keys]\ntheme = "x"' in text
    config_file.write_text('[keys]\nnext = "j"\n', encoding="utf-8")
    config.remember_theme("nord")
    assert config.load().theme == "nord" and config.load().keys == {"next": "j"}


@pytest.mark.ui
async def test_the_app_applies_the_config_and_remembers_a_picked_theme(config_file: Path, saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tracker.ui.app import TrackerApp

    monkeypatch.delenv("TRACKER_USER", raising=False)
    monkeypatch.delenv("TRACKER_READ_ONLY", raising=False)
    config_file.parent.mkdir(parents=True)
    config_file.write_text('theme = "nord"\n[keys]\nreload = "j"\n', encoding="utf-8")
    app = TrackerApp(saves)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.theme == "nord"
        assert "j" in {key for key, _ in app.screen.active_bindings.items()}
        app.theme = "gruvbox"  # what the palette's theme picker does
        await settle(pilot)
    assert config.load().theme == "gruvbox"


@pytest.mark.ui
async def test_starting_the_app_writes_no_config(config_file: Path, saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tracker.ui.app import TrackerApp

    monkeypatch.delenv("TRACKER_USER", raising=False)
    app = TrackerApp(saves)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
    assert not config_file.exists()  # only a theme the user picks is written


@pytest.mark.ui
async def test_a_viewer_never_writes_the_config(config_file: Path, saves: Path) -> None:
    from tracker.ui.app import TrackerApp

    app = TrackerApp(saves, viewer=True)
    async with app.run_test(size=(80, 24)) as pilot:
        app.theme = "gruvbox"
        await settle(pilot)
    assert not config_file.exists()


# ---------------------------------------------------------------- completion
def _bash_complete(script: str, line: str) -> list[str]:
    words = line.split(" ")
    program = script + "\n" + f"COMP_WORDS=({' '.join(repr(w) for w in words)}); COMP_CWORD={len(words) - 1}; _tracker; printf '%s\\n' \"${{COMPREPLY[@]}}\"\n"
    done = subprocess.run(["bash", "-c", program], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bash_completion_is_generated_from_the_parser() -> None:
    code, script = run("completion", "bash")
    assert code == 0
    assert {"open", "new", "export", "web", "completion", "config", "examples"} <= set(_bash_complete(script, "tracker "))
    assert sorted(_bash_complete(script, "tracker ex")) == ["examples", "export"]
    assert set(_bash_complete(script, "tracker export f.toml --format ")) == {"md", "html"}
    assert set(_bash_complete(script, "tracker --saves x completion ")) == {"bash", "zsh", "fish"}
    assert "--viewer" in _bash_complete(script, "tracker export f.toml --")


def test_zsh_and_fish_completion_name_every_command_and_option() -> None:
    from tracker.cli import _parser
    from tracker.completion import model

    top, commands = model(_parser())
    for shell in ("zsh", "fish"):
        code, script = run("completion", shell)
        assert code == 0
        for command in commands:
            assert command.name in script
            for option in command.options:
                flag = option.flags[-1]
                assert (flag if shell == "zsh" else f"-l {flag[2:]}") in script
    for shell in ("zsh", "fish"):
        if shutil.which(shell):
            code, script = run("completion", shell)
            checked = subprocess.run([shell, "-n"], input=script, capture_output=True, text=True, timeout=30)
            assert checked.returncode == 0, checked.stderr


# ---------------------------------------------------------------- export
def _fight(saves: Path) -> None:
    assert run("new", "ambush", "--ruleset", "freeform")[0] == 0
    lines = "add Ann hp=20 side=party\nadd <b>Bo</b>[x](javascript:1) hp=15\nadd Lurker hidden=true hp=9\n" \
        "declare Lurker stab target=Ann pt=4 damage=2\ndeclare Ann scheme pt=5 secret=true note=betrayal\nnote wiped\nnext\nnext\n"
    assert run("play", "ambush", stdin=lines)[0] == 0
    # a hand-edited (or older) save may hold control characters: they must not reach the page
    path = saves / "ambush.toml"
    path.write_text(path.read_text(encoding="utf-8").replace("wiped", "\\u001b[2Jwiped"), encoding="utf-8")


def test_export_markdown_has_roster_state_and_whole_log(saves: Path) -> None:
    _fight(saves)
    code, md = run("export", "ambush")
    assert code == 0
    for heading in ("## Roster", "## Final state", "## Actions", "## Combat log"):
        assert heading in md
    assert "Lurker" in md and "betrayal" in md  # the GM's export has everything
    assert "\x1b" not in md and "␛" in md
    assert "<b>" not in md and "\\<b\\>Bo\\</b\\>\\[x\\](javascript:1)" in md
    shown = json.loads(run("show", "ambush", "--json", "--log", "1000")[1])
    log_lines = [line for line in md.splitlines() if line.startswith("- \\[")]
    assert len(log_lines) == len(shown["log"])


def test_export_viewer_html_shows_only_what_a_viewer_may_see(saves: Path, tmp_path: Path) -> None:
    _fight(saves)
    out = tmp_path / "handout.html"
    code, said = run("export", "ambush", "--viewer", "-o", str(out))
    assert code == 0 and str(out) in said
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "Lurker" not in page and "betrayal" not in page and "stated by the GM" not in page
    assert "Ann" in page and "&lt;b&gt;Bo&lt;/b&gt;" in page and "<b>Bo" not in page
    assert "\x1b" not in page
    assert run("export", "ambush", "--format", "md", "--viewer")[1].count("Lurker") == 0


def test_export_of_a_bad_file_is_a_named_error(saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (saves / "bad.toml").write_text("schema_version = [", encoding="utf-8")
    assert run("export", "bad")[0] == 1
    err = capsys.readouterr().err
    assert "bad.toml" in err and "Traceback" not in err


# ---------------------------------------------------------------- web
@pytest.mark.serve
def test_web_runs_only_read_only_viewers(tmp_path: Path) -> None:
    from tracker.web import public_url, tab_argv

    argv = tab_argv(tmp_path, tmp_path / "a.toml")
    assert argv[1:4] == ["-m", "tracker.web", "tab"] and argv[-1] == str((tmp_path / "a.toml").resolve())
    assert public_url("127.0.0.1", 8000) == "http://127.0.0.1:8000"
    assert "0.0.0.0" not in public_url("0.0.0.0", 8000)


async def _browser_tab(port: int, keys: str) -> str:
    import aiohttp

    text = ""
    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(f"http://127.0.0.1:{port}/ws?width=80&height=24", origin=f"http://127.0.0.1:{port}") as ws:
            deadline = time.monotonic() + 60
            while "Seraph" not in text and time.monotonic() < deadline:
                message = await ws.receive(timeout=deadline - time.monotonic())
                if message.type not in (aiohttp.WSMsgType.TEXT, aiohttp.WSMsgType.BINARY):
                    break
                text += message.data if isinstance(message.data, str) else message.data.decode("utf-8", "replace")
            await ws.send_json(["stdin", keys + "?"])
            # The help, once drawn, shows the keys before it were read; then look at the file.
            deadline = time.monotonic() + 60
            while "keys (esc closes)" not in text and time.monotonic() < deadline:
                message = await ws.receive(timeout=deadline - time.monotonic())
                if message.type not in (aiohttp.WSMsgType.TEXT, aiohttp.WSMsgType.BINARY):
                    break
                text += message.data if isinstance(message.data, str) else message.data.decode("utf-8", "replace")
    return text


@pytest.mark.serve
def test_web_serves_the_page_on_127_0_0_1(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT), TRACKER_SAVES=str(ROOT / "saves"))
    # Port 0: the server binds a free port itself and prints it (no race for one).
    server = subprocess.Popen([sys.executable, "-m", "tracker", "web", "--port", "0", "--encounter", "seraph-vs-sphinx"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert server.stderr is not None
        line = server.stderr.readline()  # its first line, once it listens (or why it could not)
        found = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
        assert found, line + server.stderr.read() if server.poll() is not None else line
        port = int(found.group(1))
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as response:
            page = response.read().decode("utf-8")
        assert f"ws://127.0.0.1:{port}/ws" in page and "textual.js" in page
        # what the page's script does: the encounter shows, and a GM's key changes nothing
        saved = (ROOT / "saves" / "seraph-vs-sphinx.toml").read_bytes()
        screen = asyncio.run(_browser_tab(port, keys="n"))
        assert "Seraph" in screen and "keys (esc closes)" in screen
        assert (ROOT / "saves" / "seraph-vs-sphinx.toml").read_bytes() == saved
        with socket.socket() as s:  # bound to loopback only
            addresses = {info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)} - {"127.0.0.1", "127.0.1.1"}
            for address in addresses:
                assert s.connect_ex((address, port)) != 0
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_web_refuses_an_unknown_encounter(saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("web", "--encounter", "nope", "--port", "0")[0] == 1
    assert "nope: no such encounter" in capsys.readouterr().err


# ---------------------------------------------------------------- start-up
def test_a_roll_imports_neither_files_nor_metadata_nor_textual_nor_the_odds_library() -> None:
    code = (
        "import sys, io\nfrom tracker.cli import main\nmain(['roll', 'brandx', '15', '--seed', '1'], stdout=io.StringIO())\n"
        "print(sorted(m for m in ('tracker.session', 'tracker.persistence.store', 'tracker.report', 'importlib.metadata', 'textual', 'rulesets.usor', 'platformdirs', 'icepool') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


def test_default_viewer_resources_come_from_the_config(config_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(config, "_viewer_default", None)
    assert config.default_viewer_resources() == "exact"
    config_file.parent.mkdir(parents=True)
    config_file.write_text('viewer_resources = "hidden"\n', encoding="utf-8")
    monkeypatch.setattr(config, "_viewer_default", None)
    assert config.default_viewer_resources() == "hidden"
    config_file.write_text('viewer_resources = "nonsense"\n', encoding="utf-8")
    monkeypatch.setattr(config, "_viewer_default", None)
    assert config.default_viewer_resources() == "exact"


def test_every_command_takes_saves_after_it() -> None:
    from tracker.cli import _parser

    parser = _parser()
    assert parser.parse_args(["serve", "--saves", "d"]).saves == "d"
    assert parser.parse_args(["--saves", "d", "serve"]).saves == "d"
    assert parser.parse_args(["web"]).saves is None
    for name in ("open", "new", "show", "play", "check", "serve", "web", "export", "examples"):
        argv = [name] + (["f"] if name in ("new", "show", "play", "check", "export") else []) + ["--saves", "x"]
        assert parser.parse_args(argv).saves == "x", name


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_fish_completion_completes(tmp_path: Path) -> None:
    script = tmp_path / "tracker.fish"
    script.write_text(run("completion", "fish")[1], encoding="utf-8")

    def complete(line: str) -> set[str]:
        done = subprocess.run(["fish", "--no-config", "-c", f"source {script}; complete -C '{line}'"], capture_output=True, text=True, timeout=30)
        return {row.split("\t")[0] for row in done.stdout.splitlines()}

    assert complete("tracker ex") == {"examples", "export"}
    assert complete("tracker export f --format ") == {"md", "html"}
    assert "--viewer" in complete("tracker export f --v")


def test_examples_into_a_folder_that_cannot_be_made_is_a_named_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "afile"
    blocker.write_text("", encoding="utf-8")
    assert run("examples", "--saves", str(blocker))[0] == 1
    err = capsys.readouterr().err
    assert str(blocker) in err and "cannot be copied" in err and "internal error" not in err


@pytest.mark.ui
async def test_the_start_screen_names_the_folder_it_lists(nowhere: Path) -> None:
    from textual.widgets import Static

    from tracker.ui.app import TrackerApp

    folder = paths.prepare(paths.locate())
    app = TrackerApp(folder)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        texts = [str(w.render()) for w in app.screen.query(Static)]
        assert any(str(folder) in text for text in texts), texts


def test_show_viewer_follows_the_configs_default_for_enemy_resources(config_file: Path, tmp_path: Path) -> None:
    """An encounter whose GM has not chosen shows enemies to viewers as the config says."""
    saves = tmp_path / "saves"
    env = dict(os.environ, TRACKER_CONFIG=str(config_file), TRACKER_SAVES=str(saves))
    run = lambda *a, **k: subprocess.run([sys.executable, "-m", "tracker", *a], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, **k)
    run("new", "fight", "--ruleset", "freeform")
    run("play", "fight", input="add Ann hp=10 side=PCs\nadd Ogre hp=40 side=foes\ndamage Ogre 25\n")
    assert "15/40" in run("show", "fight", "--viewer").stdout  # no config: exact
    config_file.parent.mkdir(parents=True)
    config_file.write_text('viewer_resources = "label"\n', encoding="utf-8")
    shown = run("show", "fight", "--viewer").stdout
    assert "Bloodied" in shown and "15/40" not in shown
    assert "15/40" in run("show", "fight").stdout  # the GM still sees the figures
