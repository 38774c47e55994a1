"""Direct tests of tracker.command.extras, from its module docstring: the command that
adds an extra follows how the running tracker was installed (pipx, uv tool, an editable
checkout, a folder, archive or URL, an index; uv's pip where uv installed it), with the
extra's own requirements as the metadata states them. tests/test_extras.py has the
common cases; these pin each branch and what `running` reads from the metadata."""

from __future__ import annotations

import email.message
import json
import shlex
import sys
import types
from pathlib import Path

import pytest

import tracker
from tracker.command import extras

PYTHON = "/opt/my tools/bin/python"  # a space: every path is quoted for the shell


def _install(prefix: Path, requires: list[str], *, direct: dict[str, object] | None = None, installer: str = "pip",
             marker: str = "") -> extras.Install:
    prefix.mkdir(parents=True, exist_ok=True)
    if marker:
        (prefix / marker).write_text("{}", encoding="utf-8")
    return extras.Install("segment-tracker", prefix, PYTHON, requires, direct, installer)


TWO = ['asyncssh >= 2.14 ; extra == "serve"', "cryptography>=42; extra == 'serve'", 'textual-serve>=1.1; extra == "web"']


# ------------------------------------------------------------- extra_requirements
def test_the_extras_requirements_are_those_its_marker_names() -> None:
    """Markers removed, either quote, spaces inside the requirement dropped, other
    extras' lines and unmarked lines left out; an extra with none gives none."""
    requires = ["textual<8.3,>=8.2", *TWO, 'colorama; sys_platform == "win32" and extra == "serve"',
                'pytest; extra == "test"']
    assert extras.extra_requirements(requires, "serve") == ["asyncssh>=2.14", "cryptography>=42", "colorama"]
    assert extras.extra_requirements(requires, "web") == ["textual-serve>=1.1"]
    assert extras.extra_requirements(requires, "docs") == []
    assert extras.extra_requirements([], "serve") == []


# ------------------------------------------------------------- direct_source
def test_a_direct_installs_source_is_a_local_path_or_the_url() -> None:
    assert extras.direct_source({"url": "file:///home/gm/my%20clone"}) == "/home/gm/my clone"
    assert extras.direct_source({"url": "https://example.org/segment_tracker-1.0.tar.gz"}) == "https://example.org/segment_tracker-1.0.tar.gz"
    assert extras.direct_source({"url": "git+https://example.org/t.git"}) == "git+https://example.org/t.git"
    assert extras.direct_source({}) == ""


# ------------------------------------------------------------- command
def test_a_source_tree_never_installed_installs_itself_editable() -> None:
    """No install (a tree on sys.path): the checkout holding the tracker package, with
    the interpreter running now."""
    checkout = Path(tracker.__file__).resolve().parent.parent
    assert extras.command("serve", None) == f"{shlex.quote(sys.executable)} -m pip install -e {shlex.quote(f'{checkout}[serve]')}"
    assert extras.command("web", None).endswith(shlex.quote(f"{checkout}[web]"))


def test_pipx_injects_every_requirement_or_the_distribution_with_its_extra(tmp_path: Path) -> None:
    install = _install(tmp_path / "pipx", TWO, marker="pipx_metadata.json")
    assert extras.command("serve", install) == "pipx inject segment-tracker 'asyncssh>=2.14' 'cryptography>=42'"
    assert extras.command("docs", install) == "pipx inject segment-tracker 'segment-tracker[docs]'"


def test_a_uv_tool_is_installed_again_with_each_requirement(tmp_path: Path) -> None:
    from_index = _install(tmp_path / "uv-a", TWO, marker="uv-receipt.toml", installer="uv")
    assert extras.command("serve", from_index) == "uv tool install --force --with 'asyncssh>=2.14' --with 'cryptography>=42' segment-tracker"
    from_url = _install(tmp_path / "uv-b", TWO, marker="uv-receipt.toml", installer="uv",
                        direct={"url": "file:///home/gm/my%20clone", "dir_info": {}})
    assert extras.command("web", from_url) == "uv tool install --force --with 'textual-serve>=1.1' '/home/gm/my clone'"


def test_an_editable_checkout_by_pip_or_by_uv(tmp_path: Path) -> None:
    editable = {"url": "file:///work/my%20clone", "dir_info": {"editable": True}}
    by_pip = _install(tmp_path / "venv", TWO, direct=editable)
    assert extras.command("serve", by_pip) == f"{shlex.quote(PYTHON)} -m pip install -e '/work/my clone[serve]'"
    by_uv = _install(tmp_path / "uvvenv", TWO, direct=editable, installer="uv")
    assert extras.command("serve", by_uv) == f"uv pip install --python {shlex.quote(PYTHON)} -e '/work/my clone[serve]'"


def test_a_folder_archive_or_url_install_takes_the_requirements(tmp_path: Path) -> None:
    """Not editable (a folder installed as it was, a wheel, a URL): the extra's
    requirements by themselves, as the checkout's may have moved."""
    folder = _install(tmp_path / "a", TWO, direct={"url": "file:///src/t", "dir_info": {"editable": False}})
    assert extras.command("serve", folder) == f"{shlex.quote(PYTHON)} -m pip install 'asyncssh>=2.14' 'cryptography>=42'"
    wheel = _install(tmp_path / "b", TWO, direct={"url": "https://x.example/t-1.0-py3-none-any.whl", "archive_info": {}})
    assert extras.command("web", wheel) == f"{shlex.quote(PYTHON)} -m pip install 'textual-serve>=1.1'"
    odd = _install(tmp_path / "c", TWO, direct={"url": "file:///src/t", "dir_info": "not a table"})
    assert extras.command("web", odd) == f"{shlex.quote(PYTHON)} -m pip install 'textual-serve>=1.1'"


def test_from_an_index_the_distribution_with_its_extra(tmp_path: Path) -> None:
    by_pip = _install(tmp_path / "a", TWO)
    assert extras.command("serve", by_pip) == f"{shlex.quote(PYTHON)} -m pip install 'segment-tracker[serve]'"
    by_uv = _install(tmp_path / "b", TWO, installer="uv")
    assert extras.command("web", by_uv) == f"uv pip install --python {shlex.quote(PYTHON)} 'segment-tracker[web]'"


# ------------------------------------------------------------- running
class _Dist:
    """An installed distribution as importlib.metadata gives it (its metadata headers are
    case-insensitive, as a real one's are)."""

    def __init__(self, root: Path, name: str, files: dict[str, str], requires: list[str] | None) -> None:
        self.root = root
        self.files = files
        self.requires = requires
        self.metadata = email.message.Message()
        self.metadata["Name"] = name

    def locate_file(self, path: str) -> Path:
        return self.root / path

    def read_text(self, name: str) -> str | None:
        return self.files.get(name)


def _environment(monkeypatch: pytest.MonkeyPatch, prefix: Path, packages: dict[str, list[str]], dists: dict[str, list[_Dist]]) -> None:
    monkeypatch.setattr(sys, "prefix", str(prefix))
    fake = types.SimpleNamespace(packages_distributions=lambda: packages, distributions=lambda name: list(dists.get(name, [])))
    monkeypatch.setattr(extras, "metadata", fake)


def test_running_reads_the_copy_installed_in_this_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A build's egg-info in the current folder is found first but says nothing of the
    install: the copy under sys.prefix is the one read (name, requirements, PEP 610
    direct_url.json, INSTALLER)."""
    prefix = tmp_path / "venv"
    checkout = _Dist(tmp_path / "checkout", "segment-tracker", {}, ["wrong"])
    direct = {"url": "file:///home/gm/clone", "dir_info": {"editable": True}}
    installed = _Dist(prefix / "lib" / "site-packages", "Segment-Tracker",
                      {"direct_url.json": json.dumps(direct), "INSTALLER": "uv\n"}, TWO)
    _environment(monkeypatch, prefix, {"tracker": ["ghost", "segment-tracker", "segment-tracker"], "rulesets": ["other"]},
                 {"segment-tracker": [checkout, installed]})
    got = extras.running()
    assert got == extras.Install("Segment-Tracker", prefix, sys.executable, TWO, direct, "uv")
    assert isinstance(got.prefix, Path)


def test_running_without_an_install_record_is_from_an_index_by_pip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No direct_url.json, no INSTALLER, no requirements: from an index, by pip."""
    prefix = tmp_path / "venv"
    _environment(monkeypatch, prefix, {"tracker": ["segment-tracker"]}, {"segment-tracker": [_Dist(prefix, "segment-tracker", {}, None)]})
    assert extras.running() == extras.Install("segment-tracker", prefix, sys.executable, [], None, "pip")


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '"a string"'])
def test_a_direct_url_file_that_is_no_table_is_ignored(text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    prefix = tmp_path / "venv"
    dist = _Dist(prefix, "segment-tracker", {"direct_url.json": text, "INSTALLER": "pip"}, TWO)
    _environment(monkeypatch, prefix, {"tracker": ["segment-tracker"]}, {"segment-tracker": [dist]})
    found = extras.running()
    assert found is not None and found.direct_url is None and found.requires == TWO


def test_running_from_a_tree_no_distribution_holds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _environment(monkeypatch, tmp_path, {"rulesets": ["segment-tracker"]}, {"segment-tracker": [_Dist(tmp_path, "x", {}, [])]})
    assert extras.running() is None
    _environment(monkeypatch, tmp_path, {"tracker": ["ghost"]}, {})
    assert extras.running() is None
