"""Runs locally on Windows (issue 24, item 6): the app and the local commands import
nothing POSIX-only. Simulated here by hiding the POSIX modules in a fresh interpreter
(an import of a module set to None in sys.modules raises ImportError, as on Windows) and
standing in for `msvcrt` with a lock that records its calls, so the lock shim's Windows
branch is the one that runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.helpers import cli as run_here

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
POSIX_ONLY = ("fcntl", "pwd", "grp", "termios", "tty", "pty", "resource")
# The app's own code, with Textual's terminal driver left as it is: Textual picks its
# Windows driver there itself, and its Linux one (termios) here.
APP_HIDES = ("fcntl", "pwd", "grp", "pty", "resource")

# Run before the tracker is imported: POSIX modules hidden, msvcrt.locking stood in for
# by the real flock (taken before hiding it) and every call counted in `_calls`. The
# standard modules that tell Windows by finding msvcrt (subprocess, asyncio, getpass)
# are loaded before the stand-in appears, so they keep working as on this host.
PRELUDE = textwrap.dedent(
    """
    import sys, types, fcntl as _real
    POSIX_ONLY = HIDDEN
    for _name in POSIX_ONLY:
        sys.modules.pop(_name, None)
        sys.modules[_name] = None
    import asyncio, getpass, subprocess
    import os
    if WINDOWS_OS:  # what Windows' os module lacks: descriptor-relative calls, pread, fchmod, ...
        os.supports_dir_fd = set()
        for _name in ("pread", "fchmod", "fchown", "O_DIRECTORY", "O_NOFOLLOW", "O_NOCTTY", "O_NONBLOCK"):
            if hasattr(os, _name):
                delattr(os, _name)
        def _windows(call):
            # as on Windows: no dir_fd arguments, and a folder cannot be opened as a file
            def windows_call(*args, **kwargs):
                if any(kwargs.get(k) is not None for k in ("dir_fd", "src_dir_fd", "dst_dir_fd")):
                    raise NotImplementedError(f"{call.__name__}: dir_fd unavailable on this platform")
                if call is _open and os.path.isdir(args[0]):
                    raise PermissionError(13, "Permission denied", args[0])
                return call(*args, **kwargs)
            return windows_call
        _open = os.open
        for _name in ("open", "stat", "replace", "rename", "unlink", "readlink", "mkdir", "rmdir"):
            setattr(os, _name, _windows(getattr(os, _name)))
    _calls = []
    def _locking(fd, mode, nbytes):
        _calls.append(mode)
        if mode == 1:
            _real.flock(fd, _real.LOCK_EX | _real.LOCK_NB)
        else:
            _real.flock(fd, _real.LOCK_UN)
    msvcrt = types.ModuleType("msvcrt")
    msvcrt.LK_UNLCK, msvcrt.LK_NBLCK = 0, 1
    msvcrt.locking = _locking
    sys.modules["msvcrt"] = msvcrt
    """
)


def _run(code: str, cwd: Path, env_extra: dict[str, str], hidden: tuple[str, ...] = POSIX_ONLY, windows_os: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **env_extra, "PYTHONPATH": str(ROOT)}
    env.pop("TRACKER_DEBUG", None)
    return subprocess.run([sys.executable, "-c", PRELUDE.replace("HIDDEN", repr(hidden)).replace("WINDOWS_OS", repr(windows_os)) + textwrap.dedent(code)], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_local_commands_run_without_posix_modules(tmp_path: Path) -> None:
    saves = tmp_path / "saves"
    saves.mkdir()
    (saves / "seraph.toml").write_bytes((ROOT / "saves" / "seraph-vs-sphinx.toml").read_bytes())
    (tmp_path / "outside.toml").write_bytes((ROOT / "saves" / "ogs-guard.toml").read_bytes())
    (saves / "evil.toml").symlink_to(tmp_path / "outside.toml")
    code = """
    import io, json
    from tracker.command.cli import main
    results = {}
    def run(*argv, stdin=""):
        out = io.StringIO()
        results[" ".join(argv)] = (main(list(argv), stdin=io.StringIO(stdin), stdout=out), out.getvalue())
    run("show", "seraph")
    run("check", "seraph")
    run("play", "seraph", "--seed", "3", stdin="next\\n")
    run("export", "seraph", "--format", "html")
    run("odds", "d6", "3D", "--difficulty", "10")
    run("new", "fresh", "--ruleset", "freeform")
    run("play", "fresh", stdin="add Ann hp=20\\ndamage Ann 3\\n")
    run("config", "--set", "theme=nord")
    run("show", "evil")
    run("examples", "--saves", "copies")
    run("serve")
    print(json.dumps({"results": results, "locks": _calls, "hidden": [n for n in POSIX_ONLY if sys.modules.get(n) is not None]}))
    """
    done = _run(code, tmp_path, {"TRACKER_SAVES": str(saves), "TRACKER_CONFIG": str(tmp_path / "config.toml")})
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.splitlines()[-1])
    results = report["results"]
    assert results["show seraph"][0] == 0 and "Seraph" in results["show seraph"][1]
    assert results["check seraph"][0] == 0 and ": ok (" in results["check seraph"][1]
    assert results["play seraph --seed 3"][0] == 0, done.stderr
    assert results["export seraph --format html"][0] == 0 and "<html" in results["export seraph --format html"][1]
    # the same exact chance as with every module there (the figure is the D6 rules' own)
    assert results["odds d6 3D --difficulty 10"] == list(run_here("odds", "d6", "3D", "--difficulty", "10"))
    # the save was changed under the lock, taken and released through the Windows branch
    assert report["locks"] and report["locks"].count(1) == report["locks"].count(0)
    assert report["hidden"] == []
    # files made, changed and written back without descriptor-relative calls
    assert results["new fresh --ruleset freeform"][0] == 0 and results["play fresh"][0] == 0
    assert "Ann takes 3 hp" in results["play fresh"][1] and "(hp 20 -> 17)\n# revision 2\n" in (saves / "fresh.toml").read_text(encoding="utf-8")
    assert (saves / "seraph.toml").read_text(encoding="utf-8").endswith("kind = \"advance\"\nto = 30\n# revision 11\n")  # `next` from 19
    assert results["config --set theme=nord"][0] == 0 and (tmp_path / "config.toml").read_text(encoding="utf-8") == 'theme = "nord"\n'
    assert results["examples --saves copies"][0] == 0 and len(list((tmp_path / "copies").glob("*.toml"))) == len(list((ROOT / "saves").glob("*.toml")))
    # a link leading out of the saves folder is still refused, and never followed
    assert results["show evil"][0] == 1
    assert f"{saves / 'evil.toml'}: is a symbolic link leading outside {saves} (to {tmp_path / 'outside.toml'})" in done.stderr
    # serve says it needs a POSIX host, in one line, never a traceback
    assert results["serve"][0] == 1
    assert "tracker: serve needs a POSIX host" in done.stderr and "Traceback" not in done.stderr


def test_the_app_runs_without_posix_modules(tmp_path: Path) -> None:
    saves = tmp_path / "saves"
    saves.mkdir()
    (saves / "seraph.toml").write_bytes((ROOT / "saves" / "seraph-vs-sphinx.toml").read_bytes())
    code = """
    import asyncio, json
    from pathlib import Path
    from tracker.ui.app import TrackerApp
    from tracker.play.live import Live
    from tracker.reading.roles import account

    async def main():
        file = Path("saves/seraph.toml")
        app = TrackerApp(Path("saves"), file, False, Live.open(file, False, account(), None))
        async with app.run_test(size=(80, 24)) as pilot:
            for _ in range(200):
                if "Seraph" in str(app.screen.query("*").first().render()) or app.screen.query("#roster"):
                    break
                await pilot.pause(0.05)
            shown = type(app.screen).__name__
        return shown, app.errors

    shown, errors = asyncio.run(main())
    print(json.dumps({"screen": shown, "errors": [repr(e) for e in errors], "user": account()}))
    """
    done = _run(code, tmp_path, {"TRACKER_CONFIG": str(tmp_path / "config.toml")}, APP_HIDES)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["screen"] == "EncounterScreen"
    assert report["errors"] == []
    assert report["user"]  # an account name without the passwd database
