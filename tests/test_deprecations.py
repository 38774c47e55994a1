"""Nothing the tracker does is deprecated in the Python it runs on.

The pytest configuration turns a DeprecationWarning attributed to the project's own
modules into an error. A deprecated call made through the standard library (copying an
`itertools.count`, deprecated in 3.12 and removed in 3.14, warns from inside `copy`) is
not attributed to us, so here `tracker` itself runs with every DeprecationWarning an
error, through a fight long enough to take undo checkpoints (every 64 changes), undo
into them and open the file again.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

STRICT = [sys.executable, "-W", "error::DeprecationWarning", "-W", "error::PendingDeprecationWarning", "-m", "tracker"]


def _tracker(saves: Path, *argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([*STRICT, "--saves", str(saves), *argv], input=stdin, capture_output=True, text=True, timeout=120)


def test_a_long_fight_with_undo_runs_with_deprecations_as_errors(tmp_path: Path) -> None:
    assert _tracker(tmp_path, "new", "fight", "--ruleset", "freeform").returncode == 0
    lines = ["add Ann hp=40", "add Bo hp=40 side=foes"]
    for n in range(140):  # past two checkpoints
        lines.append(f"note round {n}" if n % 3 else "declare Ann strike target=Bo pt=3 damage=1")
        if n % 3 == 2:
            lines.append("next")
    lines += ["undo"] * 70 + ["redo"] * 30
    done = _tracker(tmp_path, "play", "fight", stdin="\n".join(lines) + "\n")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Warning" not in done.stderr, done.stderr[-2000:]
    shown = _tracker(tmp_path, "show", "fight")
    assert shown.returncode == 0 and "Ann" in shown.stdout, shown.stderr[-2000:]
