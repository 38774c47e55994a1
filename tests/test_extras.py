"""The hint for a missing extra names a command that works from where the user
installed the tracker (tracker.command.extras): pipx, uv tool, an editable checkout, a venv
installed from a folder or from an index. The names come from the metadata."""

from __future__ import annotations

import shlex
import tomllib
import sys
from importlib import metadata
from pathlib import Path

from tracker.command import extras

REQUIRES = [
    "textual<8.3,>=8.2",
    'asyncssh>=2.14; extra == "serve"',
    "textual-serve>=1.1; extra == 'web'",
    'segment-tracker[serve,web]; extra == "test"',
]


def _install(prefix: Path, *, direct: dict[str, object] | None = None, installer: str = "pip", marker: str = "") -> extras.Install:
    prefix.mkdir(parents=True, exist_ok=True)
    if marker:
        (prefix / marker).write_text("{}", encoding="utf-8")
    return extras.Install("segment-tracker", prefix, str(prefix / "bin" / "python"), REQUIRES, direct, installer)


def test_pipx_injects_the_extras_own_requirements(tmp_path: Path) -> None:
    # pipx writes pipx_metadata.json at the root of each tool's venv
    install = _install(tmp_path / "pipx" / "venvs" / "segment-tracker", marker="pipx_metadata.json", direct={"url": "file:///home/gm/segment-tracker", "dir_info": {}})
    assert extras.command("serve", install) == "pipx inject segment-tracker 'asyncssh>=2.14'"
    assert extras.command("web", install) == "pipx inject segment-tracker 'textual-serve>=1.1'"


def test_uv_tool_reinstalls_from_the_same_source_with_the_extra(tmp_path: Path) -> None:
    # uv writes uv-receipt.toml at the root of each tool's venv
    from_folder = _install(tmp_path / "uv" / "tools" / "a", marker="uv-receipt.toml", installer="uv", direct={"url": "file:///home/gm/my%20clone", "dir_info": {}})
    assert extras.command("serve", from_folder) == "uv tool install --force --with 'asyncssh>=2.14' '/home/gm/my clone'"
    from_index = _install(tmp_path / "uv" / "tools" / "b", marker="uv-receipt.toml", installer="uv")
    assert extras.command("web", from_index) == "uv tool install --force --with 'textual-serve>=1.1' segment-tracker"


def test_an_editable_checkout_installs_itself_with_the_extra(tmp_path: Path) -> None:
    install = _install(tmp_path / "venv", direct={"url": "file:///work/clone", "dir_info": {"editable": True}})
    assert extras.command("serve", install) == f"{shlex.quote(install.python)} -m pip install -e '/work/clone[serve]'"


def test_a_venv_from_a_folder_or_wheel_installs_the_requirements(tmp_path: Path) -> None:
    install = _install(tmp_path / "venv", direct={"url": "file:///tmp/segment_tracker-0.1.0-py3-none-any.whl", "archive_info": {}})
    assert extras.command("serve", install) == f"{install.python} -m pip install 'asyncssh>=2.14'"
    by_uv = _install(tmp_path / "uvvenv", installer="uv", direct={"url": "file:///x", "dir_info": {}})
    assert extras.command("web", by_uv) == f"uv pip install --python {by_uv.python} 'textual-serve>=1.1'"


def test_from_an_index_names_the_real_distribution(tmp_path: Path) -> None:
    install = _install(tmp_path / "venv")
    assert extras.command("serve", install) == f"{install.python} -m pip install 'segment-tracker[serve]'"


def test_the_running_install_is_read_from_its_metadata() -> None:
    """This very test run: the distribution that holds `tracker`, installed in this
    environment (not a build's egg-info in the current folder)."""
    install = extras.running()
    assert install is not None
    assert install.distribution == metadata.metadata("segment-tracker")["Name"]
    assert install.prefix == Path(sys.prefix) and install.python == sys.executable
    project = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert extras.extra_requirements(install.requires, "serve") == project["optional-dependencies"]["serve"]
    hint = extras.command("serve", install)
    if install.direct_url and (install.direct_url.get("dir_info") or {}).get("editable"):
        # the checkout it was installed from (this tree, or the clone an sdist's tests run beside)
        assert hint.endswith(shlex.quote(f"{extras.direct_source(install.direct_url)}[serve]"))
        assert Path(extras.direct_source(install.direct_url), "pyproject.toml").is_file()

