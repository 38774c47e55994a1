"""The engine, the rulesets and persistence never import Textual."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PURE = ["tracker.engine", "tracker.session", "tracker.recent", "tracker.report", "tracker.stats", "tracker.charts", "tracker.export", "tracker.persistence.store", "tracker.persistence.codec", "rulesets.registry"]


def test_pure_packages_do_not_import_textual() -> None:
    code = (
        "import sys, pkgutil, importlib\n"
        f"for name in {PURE!r}: importlib.import_module(name)\n"
        "import rulesets, rulesets.registry\n"
        "for cls in rulesets.registry.available().values(): cls().catalogue()\n"
        "for m in pkgutil.walk_packages(rulesets.__path__, 'rulesets.'): importlib.import_module(m.name)\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print(len(rulesets.registry.available()))\n"
        "assert not bad, bad\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout.strip()) >= 1
