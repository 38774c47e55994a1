"""Completion that knows the tool (issue 24, item 2): each shell's own completion run
against the installed `tracker`, with a saves folder of known encounters.

Skipped, with the reason, where a shell or the `tracker` script is missing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import cli as run

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
RULESETS = ["brandx", "d6", "freeform", "ogs", "ore", "usor"]
needs_script = pytest.mark.skipif(not (BIN / "tracker").exists(), reason="the `tracker` script is not installed beside this Python (pip install -e .)")


@pytest.fixture
def table(tmp_path: Path) -> dict[str, str]:
    """Environment for a shell: two saves folders, the first in TRACKER_SAVES."""
    for folder, names in (("saves", ("seraph-vs-sphinx", "second-fight", "usor-pass")), ("other", ("ogs-guard",))):
        (tmp_path / folder).mkdir()
        for name in names:
            (tmp_path / folder / f"{name}.toml").write_bytes((ROOT / "saves" / "ogs-guard.toml").read_bytes())
    (tmp_path / "saves" / "library-ogs.toml").write_text("", encoding="utf-8")  # sheets, not an encounter
    return {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "TRACKER_SAVES": str(tmp_path / "saves"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "HOME": str(tmp_path),
        "OTHER": str(tmp_path / "other"),
    }


def _script(shell: str, tmp_path: Path) -> Path:
    code, text = run("completion", shell)
    assert code == 0
    path = tmp_path / f"tracker.{shell}"
    path.write_text(text, encoding="utf-8")
    return path


def bash(line: str, env: dict[str, str], script: Path) -> list[str]:
    words = line.split(" ")
    program = (
        f"source {script}\n"
        f'COMP_LINE="{line}"; COMP_POINT=${{#COMP_LINE}}; COMP_WORDS=({" ".join(repr(w) for w in words)}); COMP_CWORD={len(words) - 1}\n'
        '_python_argcomplete tracker\nprintf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = subprocess.run(["bash", "--norc", "--noprofile", "-c", program], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return sorted(w.strip() for w in done.stdout.splitlines() if w.strip())


def zsh(line: str, env: dict[str, str], script: Path) -> list[str]:
    """zsh's completion function as written, with `_describe` (which would draw the menu)
    printing the `name:description` entries it was handed."""
    words = line.split(" ")
    program = (
        "autoload -Uz is-at-least\ncompdef() { : }\n"
        '_describe() { print -rl -- "${completions[@]}" }\n'
        f"source {script}\n"
        f'BUFFER="{line}"; CURSOR=${{#BUFFER}}; words=({" ".join(repr(w) for w in words)})\n'
        "_python_argcomplete\n"
    )
    done = subprocess.run(["zsh", "-f", "-c", program], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return sorted(w for w in done.stdout.splitlines() if w)


def fish(line: str, env: dict[str, str], script: Path) -> list[str]:
    done = subprocess.run(["fish", "--no-config", "-c", f"source {script}; complete -C '{line}'"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return sorted(w for w in done.stdout.splitlines() if w)


def _names(rows: list[str]) -> list[str]:
    """The candidates without their descriptions (zsh "name:help", fish "name\thelp")."""
    return sorted(r.split("\t")[0].split(":")[0].replace("\\", "") for r in rows)


SHELLS = {"bash": bash, "zsh": zsh, "fish": fish}


@needs_script
@pytest.mark.parametrize("shell", list(SHELLS))
def test_completion_knows_saves_rulesets_and_choices(shell: str, table: dict[str, str], tmp_path: Path) -> None:
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed (apt-get install {shell})")
    script = _script(shell, tmp_path)

    def complete(line: str) -> list[str]:
        return _names(SHELLS[shell](line, table, script))

    # save names from the saves folder in force (TRACKER_SAVES), never the library file
    assert complete("tracker show ") == ["second-fight", "seraph-vs-sphinx", "usor-pass"]
    assert complete("tracker open se") == ["second-fight", "seraph-vs-sphinx"]
    assert complete("tracker play u") == ["usor-pass"]
    assert complete("tracker new x --from se") == ["second-fight", "seraph-vs-sphinx"]
    assert complete("tracker web --encounter us") == ["usor-pass"]
    # ... and from the folder the line itself names, before or after the command
    other = table["OTHER"]
    assert complete(f"tracker --saves {other} check ") == ["ogs-guard"]
    assert complete(f"tracker export --saves {other} o") == ["ogs-guard"]
    # ruleset ids, wherever a ruleset is asked for
    assert complete("tracker odds ") == RULESETS
    assert complete("tracker roll o") == ["ogs", "ore"]
    assert complete("tracker new fight --ruleset ") == RULESETS
    # commands, choices and options
    assert complete("tracker ex") == ["examples", "export"]
    assert complete("tracker export f --format ") == ["html", "md"]
    assert complete("tracker completion ") == ["bash", "fish", "zsh"]
    assert "--viewer" in complete("tracker show f --v")
    assert "--saves" not in complete("tracker odds d6 3D --")  # offered only where it acts


@needs_script
@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_every_option_shows_its_description(shell: str, table: dict[str, str], tmp_path: Path) -> None:
    """zsh showed `--json    --` for an option without help: every candidate has one."""
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed (apt-get install {shell})")
    script = _script(shell, tmp_path)
    for command in ("show", "serve", "odds", "export", "config", "rulesets"):
        rows = SHELLS[shell](f"tracker {command} --", table, script)
        assert rows, command
        sep = ":" if shell == "zsh" else "\t"
        for row in rows:
            name, _, description = row.replace("\\:", "").partition(sep)
            assert description.strip(), f"{shell}: {command} {name} has no description"
    rows = SHELLS[shell]("tracker show --j", table, script)
    assert rows == (["--json:print JSON instead of text"] if shell == "zsh" else ["--json\tprint JSON instead of text"])


def test_completing_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A TAB before the first command offers the worked examples by name and makes no folder."""
    from tracker.command.completion import encounter_names

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TRACKER_SAVES", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert encounter_names("se") == ["seraph-vs-sphinx"]
    assert not (tmp_path / "data").exists()
