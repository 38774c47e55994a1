from __future__ import annotations

import itertools
import os
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# The user's own data and config folders are never touched by a test (nor read: a config
# file on the machine running the tests must not change what they see). Subprocesses inherit.
_HOME = Path(tempfile.mkdtemp(prefix="tracker-test-home-"))
os.environ["XDG_DATA_HOME"] = str(_HOME / "data")
os.environ["XDG_CONFIG_HOME"] = str(_HOME / "config")
os.environ.pop("TRACKER_CONFIG", None)
_tests_begun = itertools.count()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Each test its own config and data folders, empty: what one test leaves there (a
    theme picked in the palette, the roster mode, which the app writes to the config as a
    user's choice) never reaches the next test on the same worker. A hook, not an autouse
    fixture: hypothesis refuses function-scoped fixtures under @given. A test's
    monkeypatch.setenv of either still wins, and is undone at its teardown."""
    home = _HOME / f"test-{next(_tests_begun)}"
    os.environ["XDG_DATA_HOME"] = str(home / "data")
    os.environ["XDG_CONFIG_HOME"] = str(home / "config")


# Bytecode caches on, whatever the environment says (some containers set
# PYTHONDONTWRITEBYTECODE): without them every worker rewrites and compiles every test
# module, and every process a test starts (a server, a viewer, the CLI) compiles the
# tracker again, about a fifth of its start. Subprocesses inherit the environment.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


@pytest.fixture
def saves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty saves folder used as $TRACKER_SAVES."""
    folder = tmp_path / "saves"
    folder.mkdir()
    monkeypatch.setenv("TRACKER_SAVES", str(folder))
    return folder


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: two workers per core. Most UI and serve tests spend their time waiting on
    another process, a pseudo-terminal or the key hold's checks, so one worker per core
    leaves a core idle (measured on 2 cores: 190 s with 2 workers, 125 s with 4)."""
    return 2 * (os.cpu_count() or 1)
