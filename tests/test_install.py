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
from tracker.persistence import config, paths
from tracker.command import extras
from tracker.ui import commands, settings
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
    assert paths.locate() == paths.Saves(user, "user data folder")  # a ./saves by its name alone: no
    (nowhere / "saves" / paths.MARKER).write_text("", encoding="utf-8")
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
    assert sorted(p.name for p in paths.encounter_files(folder) + paths.campaign_files(folder)) == EXAMPLES
    # never again: a user who deleted an example does not get it back unasked
    (folder / EXAMPLES[0]).unlink()
    paths.prepare(place)
    assert not (folder / EXAMPLES[0]).exists()


def test_the_first_command_after_installing_finds_the_examples(nowhere: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 24: `tracker show seraph-vs-sphinx` right after `pipx install` (no bare
    `tracker` run before) shows the fight; the user data folder is made for it."""
    code, out = run("show", "seraph-vs-sphinx")
    assert code == 0, capsys.readouterr().err
    assert "Seraph" in out
    assert sorted(p.name for p in (nowhere / "data" / "segment-tracker" / "saves").glob("*.toml")) == EXAMPLES


def test_no_such_encounter_names_the_folder_and_how_to_choose_another(nowhere: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    user = nowhere / "data" / "segment-tracker" / "saves"
    assert run("check", "nope")[0] == 1
    err = capsys.readouterr().err
    assert f"nope: no such encounter in {user} (your user data folder;" in err
    assert f"looked for nope, {user / 'nope.toml'};" in err
    assert "there: city-nights-1-docks, city-nights-2-roof, city-nights-3-museum, d6-warehouse," in err
    assert "--saves DIR or TRACKER_SAVES=DIR" in err
    # a ./saves here without the marker is passed over, and the message says so
    (nowhere / "saves").mkdir()
    (nowhere / "saves" / "mine.toml").write_bytes((ROOT / "saves" / "ogs-guard.toml").read_bytes())
    assert run("show", "mine")[0] == 1
    err = capsys.readouterr().err
    assert f"the ./saves folder here is not used without a {paths.MARKER} file in it (or use --saves saves)" in err
    assert run("show", "mine", "--saves", "saves")[0] == 0
    monkeypatch.setenv("TRACKER_SAVES", str(nowhere / "saves"))
    assert run("show", "gone")[0] == 1
    assert f"gone: no such encounter in {nowhere / 'saves'} (from TRACKER_SAVES;" in capsys.readouterr().err


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
    assert (tmp_path / "lib" / "tracker" / "py.typed").is_file() and (tmp_path / "lib" / "rulesets" / "py.typed").is_file()
    assert not (shipped / paths.MARKER).exists()  # the clone's marker is no package data
    assert sorted(p.name for p in shipped.glob("*.toml")) == EXAMPLES
    code = "import tracker.persistence.paths as p; print(*(f for f in p.example_files()), sep=chr(10))"
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "lib"))
    found = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert [Path(line) for line in found.stdout.splitlines()] == sorted(shipped.glob("*.toml")), found.stderr


# ---------------------------------------------------------------- packaging
def test_package_metadata_license_and_extras() -> None:
    """Issue 24 item 5: a LICENSE, complete metadata, and serving as extras."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    assert project["authors"] and project["keywords"] and project["description"]
    assert "Topic :: Games/Entertainment :: Role-Playing" in project["classifiers"]
    assert "Operating System :: Microsoft :: Windows" in project["classifiers"]
    needed = " ".join(project["dependencies"])
    assert "asyncssh" not in needed and "textual-serve" not in needed  # a solo GM installs neither
    extras = project["optional-dependencies"]
    assert [d.split(">")[0] for d in extras["serve"]] == ["asyncssh"]
    assert [d.split(">")[0] for d in extras["web"]] == ["textual-serve"]
    assert "segment-tracker[serve,web]" in extras["test"]  # CI still runs every test
    assert "pip install -e '.[test]'" in (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(("command", "module", "extra"), [("serve", "asyncssh", "serve"), ("web", "textual_serve", "web")])
def test_serving_without_its_extra_names_the_extra(command: str, module: str, extra: str, saves: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # as if not installed: importing it raises ImportError
    assert run(command, "--encounter", "x")[0] == 1
    err = capsys.readouterr().err
    hint = extras.command(extra, extras.running())  # how this test's tracker was installed (tests/test_extras.py)
    assert err == f"tracker: {command} needs the '{extra}' extra, which is not installed ({module} is missing): {hint}\n"


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
        # issue 24: key names, and one key for two commands of a screen
        ('[keys]\nnext = "nxt"', "keys.next: 'nxt' is not a key name; expected Textual key names, comma separated: a character (a, N, ?), a named key"),
        ('[keys]\nnext = "Ctrl+A"', "keys.next: 'Ctrl+A' is not a key name"),
        ('[keys]\nnext = "ctrl+ctrl+a"', "keys.next: 'ctrl+ctrl+a' is not a key name"),
        ('[keys]\nnext = "n,,space"', "keys.next: '' is not a key name"),
        ('[keys]\nnext = "j"\nstep = "j"', "keys.next and keys.step both bind 'j'; a key runs one command on a screen"),
        ('[keys]\nnext = "?"\nstep = "question_mark"', "keys.next and keys.step both bind"),
        ('[keys]\ndeclare = "n"', "keys.declare: 'n' is already next's key by default; choose another, or give next other keys too"),
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
            settings.remember_theme("nord")
        assert config_file.read_bytes() == before


def test_new_takes_the_default_ruleset(config_file: Path, saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("new", "a")[0] == 2
    assert "--ruleset is required" in capsys.readouterr().err
    config_file.parent.mkdir(parents=True)
    config_file.write_text('default_ruleset = "ore"\n', encoding="utf-8")
    assert run("new", "a")[0] == 0
    assert run("check", "a", "--json")[1].count('"ore"') == 1


def test_remembering_a_theme_keeps_every_other_line(config_file: Path) -> None:
    settings.remember_theme("nord")
    assert config.load().theme == "nord"
    config_file.write_text('# my settings\ntheme = "nord"  # dark\ndefault_ruleset = "d6"\n[keys]\nnext = "j"\n', encoding="utf-8")
    settings.remember_theme("gruvbox")
    text = config_file.read_text(encoding="utf-8")
    assert text.startswith("# my settings\ntheme = \"gruvbox\"  # dark\n")  # its comment too
    assert 'default_ruleset = "d6"' in text and '[keys]\nnext = "j"' in text
    config_file.write_text('[keys]\nnext = "j"\n', encoding="utf-8")
    settings.remember_theme("nord")
    assert config.load().theme == "nord" and config.load().keys == {"next": "j"}


CONFIG_AS_WRITTEN = """\
# My tracker settings.

default_ruleset = "d6"   # the Thursday game
viewer_resources = "label"

[keys]
# my hands live on the home row
next = "j, space"   # j first
declare = "a"
"""


def test_writing_a_setting_back_keeps_comments_order_and_layout(config_file: Path) -> None:
    """Issue 24 item 4: only the value changes; a new key goes at the end of its table."""
    config_file.parent.mkdir(parents=True)
    config_file.write_text(CONFIG_AS_WRITTEN, encoding="utf-8")
    settings.remember_theme("nord")
    config.remember("keys.step", "ctrl+f")
    config.remember("viewer_resources", "hidden")
    assert config_file.read_text(encoding="utf-8") == (
        "# My tracker settings.\n\n"
        'default_ruleset = "d6"   # the Thursday game\n'
        'viewer_resources = "hidden"\n'
        'theme = "nord"\n\n'
        "[keys]\n# my hands live on the home row\n"
        'next = "j, space"   # j first\n'
        'declare = "a"\n'
        'step = "ctrl+f"\n'
    )
    assert settings.load_checked(commands.tables()).keys == {"next": "j, space", "declare": "a", "step": "ctrl+f"}


def test_config_set_from_the_command_line(config_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config_file.parent.mkdir(parents=True)
    config_file.write_text(CONFIG_AS_WRITTEN, encoding="utf-8")
    assert run("config", "--set", "theme=dracula", "--set", "keys.abort=ctrl+x")[0] == 0
    text = config_file.read_text(encoding="utf-8")
    assert text.startswith(CONFIG_AS_WRITTEN.split("\n[keys]")[0].rstrip("\n") + '\ntheme = "dracula"\n')
    assert text.endswith('declare = "a"\nabort = "ctrl+x"\n')
    before = config_file.read_bytes()
    for setting, named in (
        ("keys.step=j", "keys.next and keys.step both bind 'j'"),
        ("keys.step=ctl+f", "keys.step: 'ctl+f' is not a key name; expected Textual key names"),
        ("theme=pink", "theme: expected one of"),
        ("colour=red", "colour: unknown setting"),
        ("keys.fly=f", "keys.fly: unknown command"),
    ):
        assert run("config", "--set", setting)[0] == 1, setting
        assert named in capsys.readouterr().err, setting
        assert config_file.read_bytes() == before  # refused whole: the file is as it was


def test_good_keys_pass(config_file: Path) -> None:
    config_file.parent.mkdir(parents=True)
    # another screen's key (start screen `n`: new), modifiers, characters by name, and
    # the default key two commands share by role (u: undo for the GM, take back for a player)
    config_file.write_text('[keys]\nnext = "n,space"\nstep = "ctrl+f,full_stop"\nhelp = "?,f1"\nlog_search = "shift+tab"\nundo = "u"\n', encoding="utf-8")
    assert settings.load_checked(commands.tables()).keys["help"] == "?,f1"


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
# Run in each shell against the installed script: tests/test_completion.py.


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
        "import sys, io\nfrom tracker.command.cli import main\nmain(['roll', 'brandx', '15', '--seed', '1'], stdout=io.StringIO())\n"
        "print(sorted(m for m in ('tracker.play.session', 'tracker.persistence.store', 'tracker.reading.report', 'importlib.metadata', 'textual', 'rulesets.usor', 'platformdirs', 'icepool') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


def test_opening_a_fight_loads_nothing_its_first_screen_does_not_use() -> None:
    """Decision 0059, "Later": the encounter screen's modules and a Brand X save read
    (its tables too) load neither `tomllib` (the compiled reader reads them), hashing,
    package resources, the report's charts, JSON (`--json` output), the TOML writer (a
    change written), shell quoting (a command typed) nor the campaign's fights (one
    ended), and the parser for `open` is built alone."""
    code = (
        "import sys\nimport tracker.command.cli, tracker.ui.app, tracker.ui.screens.encounter\n"
        "from tracker.persistence.store import EncounterFile\nEncounterFile('saves/seraph-vs-sphinx.toml').load()\n"
        "from tracker.command.parser import build_parser, command_in\nimport argparse\n"
        "[sub] = [a for a in build_parser(command_in(['open', 'x']))._actions if isinstance(a, argparse._SubParsersAction)]\n"
        "print(sorted(m for m in ('tomllib', 'hashlib', 'secrets', 'importlib.resources', 'tracker.reading.charts', 'json', 'tomli_w', 'shlex', 'tracker.play.fights', 'tracker.persistence.campaign') if m in sys.modules), list(sub.choices))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[] ['open']", done.stdout + done.stderr


def test_default_viewer_resources_come_from_the_config(config_file: Path) -> None:
    config.forget_viewer_default()
    assert config.default_viewer_resources() == "exact"
    config_file.parent.mkdir(parents=True)
    config_file.write_text('viewer_resources = "hidden"\n', encoding="utf-8")
    assert config.default_viewer_resources() == "exact"  # read once per process
    config.forget_viewer_default()
    assert config.default_viewer_resources() == "hidden"
    config_file.write_text('viewer_resources = "nonsense"\n', encoding="utf-8")
    config.forget_viewer_default()
    assert config.default_viewer_resources() == "exact"
    config.forget_viewer_default()  # the next test reads its own config


def test_every_command_takes_saves_after_it() -> None:
    from tracker.command.parser import build_parser

    parser = build_parser()
    assert parser.parse_args(["serve", "--saves", "d"]).saves == "d"
    assert parser.parse_args(["--saves", "d", "serve"]).saves == "d"
    assert parser.parse_args(["web"]).saves is None
    for name in ("open", "new", "show", "play", "check", "serve", "web", "export", "examples"):
        argv = [name] + (["f"] if name in ("new", "show", "play", "check", "export") else []) + ["--saves", "x"]
        assert parser.parse_args(argv).saves == "x", name


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


# ---------------------------------------------------------------- help pages
def _help_page(*argv: str) -> str:
    import contextlib
    import io

    page = io.StringIO()
    with contextlib.redirect_stdout(page):  # argparse prints help to sys.stdout itself
        code, _ = run(*argv, "--help")
    assert code == 0
    return page.getvalue()


def test_every_command_and_option_has_a_description_and_shows_its_default() -> None:
    """Issue 24 item 3: no option without help, no default left unsaid."""
    import argparse

    from tracker.command.parser import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in sub.choices.items():
        assert command.description and command.description.strip(" ."), name
        page = _help_page(name)
        assert command.description.splitlines()[0] in page.replace("\n", " ") or command.description[:30] in page, name
        for action in command._actions:
            assert action.help and action.help.strip(), f"{name} {action.option_strings or action.dest}: no help"
            shown = command._get_formatter()._expand_help(action)
            assert " ".join(shown.split()) in " ".join(page.split()), f"{name} {action.dest}: not on the page"
            if action.option_strings and action.default not in (None, False, [], argparse.SUPPRESS):
                assert f"(default: {action.default})" in shown or "default" in action.help, f"{name} {action.option_strings}: default not shown ({shown})"
    assert "--port PORT port to listen on; 0: any free port (the log says which) (default: 8022)" in " ".join(_help_page("serve").split())
    assert "--log N the newest N log lines (text output) (default: 15)" in " ".join(_help_page("show").split())


def test_saves_is_offered_only_where_it_acts_and_documented_once() -> None:
    from tracker.command.parser import NO_SAVES, build_parser
    import argparse

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    top = " ".join(_help_page().split())
    assert "--saves DIR the folder of encounter files (default: $TRACKER_SAVES" in top
    for name in sub.choices:
        page = _help_page(name)
        if name in NO_SAVES:
            assert "--saves" not in page, name
        else:
            assert "--saves DIR" in page and "the saves folder (see `tracker --help`)" in " ".join(page.split()), name
            assert "$TRACKER_SAVES" not in page, name  # the long text is the top page's only
    assert {"roll", "odds", "chart", "rulesets", "config", "completion"} == set(NO_SAVES)


def test_main_commands_have_examples_and_play_lists_the_declare_actions() -> None:
    for name in ("open", "new", "show", "play", "check", "export", "roll", "odds", "serve", "web"):
        assert "\nexamples:\n  tracker" in _help_page(name) or "\nexamples:\n  printf" in _help_page(name), name
    assert "\nexamples:\n  tracker" in _help_page()
    page = _help_page("play")
    assert "declare ACTOR TEMPLATE [target=NAME]" in page  # the command language
    from rulesets import registry

    flat = " ".join(page.split())
    for rid in registry.available():
        names = list(registry.get(rid).catalogue())
        assert f"{rid}: {', '.join(names)}" in flat, rid
    assert "brandx: punch, strike, blast" in flat and "d6: shoot, strike, dodge" in flat


def test_what_one_test_picks_never_reaches_the_next(monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite's own isolation (tests/conftest.py): a theme one test picked, written to
    the config as the app writes a user's pick, is not read by the next test on the worker
    (the snapshots once drew in whatever theme a footer test had picked last)."""
    from tests import conftest

    monkeypatch.delenv("TRACKER_CONFIG", raising=False)
    settings.remember_theme("gruvbox")
    assert config.load().theme == "gruvbox"
    before = os.environ["XDG_CONFIG_HOME"]
    conftest.pytest_runtest_setup(None)  # type: ignore[arg-type]  # what pytest calls before the next test
    assert os.environ["XDG_CONFIG_HOME"] != before
    assert config.load().theme is None
