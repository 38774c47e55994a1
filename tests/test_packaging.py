"""What pyproject.toml lists is what the source tree holds: every package folder (one
with an __init__.py) is shipped, and the worked examples ship as `tracker.examples`
from the repository's saves/ (tracker.persistence.paths.example_files reads them as package data)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_folder_is_listed() -> None:
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    folders = {".".join(p.parent.relative_to(ROOT).parts) for top in ("tracker", "rulesets") for p in (ROOT / top).rglob("__init__.py")}
    assert set(setuptools["packages"]) == folders | {"tracker.examples"}
    assert setuptools["package-dir"] == {"tracker.examples": "saves"}
    assert (ROOT / "tracker" / "py.typed").is_file() and (ROOT / "rulesets" / "py.typed").is_file()


def test_the_wheel_carries_py_typed_and_the_examples_and_the_sdist_the_tests() -> None:
    """The package data globs and MANIFEST.in name what the built files need (built for
    real in test_install.py and in .ci/run)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text)["tool"]["setuptools"]["package-data"]["*"]
    assert "py.typed" in data and "*.toml" in data
    manifest = (ROOT / "MANIFEST.in").read_text(encoding="utf-8").split()
    for needed in ("saves", "tests", "docs", "benchmarks", "rulesets/README.md", "CHANGELOG.md", "CONTRIBUTING.md", "noxfile.py"):
        assert needed in manifest, needed
