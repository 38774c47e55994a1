"""The suite on every Python the classifiers name (`nox`; CONTRIBUTING.md, "Pythons").

`nox` runs the whole suite once per Python; a Python that is not installed is skipped
(`error_on_missing_interpreters` off), so the run says which ones it did. The completion
tests use zsh and fish when they are on PATH (they skip, saying so, when not): nox passes
PATH through, so installing the shells is all it takes. `nox -s fast` runs the fast tests
only, `nox -s tests-3.12` one Python, `nox -- -k luck` hands pytest its arguments.
"""

from __future__ import annotations

import re
import shutil
import tomllib
from pathlib import Path

import nox

ROOT = Path(__file__).parent
CLASSIFIER = re.compile(r"Programming Language :: Python :: (3\.\d+)$")


def pythons() -> list[str]:
    """The Python versions pyproject.toml's classifiers name (3.11, 3.12, 3.13)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return [m.group(1) for c in project["classifiers"] if (m := CLASSIFIER.match(c))]


nox.options.error_on_missing_interpreters = False
nox.options.sessions = ["tests"]
FAST = ["-m", "not ui and not serve and not slow"]


def _shells(session: nox.Session) -> None:
    found = [name for name in ("bash", "zsh", "fish") if shutil.which(name)]
    session.log(f"shells for the completion tests: {', '.join(found) or 'none'}")


@nox.session(python=pythons())
def tests(session: nox.Session) -> None:
    """The whole suite, as CI runs it (the README's test command)."""
    session.install("-e", ".[test]")
    _shells(session)
    session.run("python", "-m", "pytest", *session.posargs)


@nox.session(python=pythons())
def fast(session: nox.Session) -> None:
    """The fast tests (engine, rules, saves, CLI): about a quarter of the whole suite's time."""
    session.install("-e", ".[test]")
    session.run("python", "-m", "pytest", *FAST, *session.posargs)
