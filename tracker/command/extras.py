"""The command that adds an optional part (an extra: `serve`, `web`) to the tracker the
user is running, worked out from how that tracker was installed.

The distribution is not on the package index under any name we could print blindly
(`pip install 'segment-tracker[serve]'` would fetch whoever registers the name), so the
hint follows the install itself:

- a pipx tool (its venv holds `pipx_metadata.json`): `pipx inject DIST REQS`;
- a uv tool (its venv holds `uv-receipt.toml`): `uv tool install --force --with REQS SOURCE`;
- an editable checkout (PEP 610 `direct_url.json` says editable):
  `PIP -e 'CHECKOUT[EXTRA]'`;
- installed from a folder, an archive or a URL: `PIP REQS`;
- from an index: `PIP 'DIST[EXTRA]'`.

PIP is `PYTHON -m pip install`, or `uv pip install --python PYTHON` when uv installed
it (the dist-info's INSTALLER; a uv venv may have no pip).

DIST is the distribution that holds this package (importlib.metadata), REQS the extra's
own requirements as its metadata states them, PYTHON the interpreter running now (the
one whose environment lacks the extra).
"""

from __future__ import annotations

import json
import shlex
import sys
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse


@dataclass(frozen=True, slots=True)
class Install:
    """What the hint needs to know about the running tracker's install."""

    distribution: str  # its name as installed (importlib.metadata), e.g. "segment-tracker"
    prefix: Path  # the environment it is installed in (sys.prefix)
    python: str  # the interpreter running it (sys.executable)
    requires: list[str] = field(default_factory=list)  # Requires-Dist lines from its metadata
    direct_url: dict[str, object] | None = None  # PEP 610 direct_url.json, when not from an index
    installer: str = "pip"  # the dist-info's INSTALLER: "uv" venvs may hold no pip at all


def running() -> Install | None:
    """The install the tracker runs from, or None for a source tree never installed."""
    prefix = Path(sys.prefix).resolve()
    for name in dict.fromkeys(metadata.packages_distributions().get((__package__ or "tracker").partition(".")[0], [])):
        # The one installed in this environment: a build's *.egg-info in the current
        # folder (a checkout) is found first on sys.path but says nothing of the install.
        found = sorted(metadata.distributions(name=name), key=lambda d: not Path(str(d.locate_file(""))).resolve().is_relative_to(prefix))
        if not found:
            continue
        dist = found[0]
        text = dist.read_text("direct_url.json")
        try:
            direct = json.loads(text) if text else None
        except ValueError:
            direct = None
        installer = (dist.read_text("INSTALLER") or "pip").strip()
        return Install(dist.metadata["Name"], Path(sys.prefix), sys.executable, list(dist.requires or []), direct if isinstance(direct, dict) else None, installer)
    return None


def extra_requirements(requires: list[str], extra: str) -> list[str]:
    """The requirements a Requires-Dist list gives for `extra` alone, markers removed
    (`asyncssh>=2.14; extra == "serve"` -> `asyncssh>=2.14`)."""
    wanted = []
    for line in requires:
        spec, _, marker = line.partition(";")
        if marker and f'extra == "{extra}"' in marker.replace("'", '"'):
            wanted.append(spec.strip().replace(" ", ""))
    return wanted


def direct_source(direct: dict[str, object]) -> str:
    """Where a direct install came from: a local path for file: URLs, else the URL."""
    url = str(direct.get("url", ""))
    parsed = urlparse(url)
    if parsed.scheme == "file":
        return unquote(parsed.path)
    return url


def command(extra: str, install: Install | None) -> str:
    """The shell command that adds `extra` to `install` (see the module docstring)."""
    if install is None:  # run from a source tree on sys.path: the tree is the checkout
        here = Path(__file__).resolve().parents[2]  # tracker/command/ -> the folder holding tracker/
        return f"{shlex.quote(sys.executable)} -m pip install -e {shlex.quote(f'{here}[{extra}]')}"
    reqs = extra_requirements(install.requires, extra) or [f"{install.distribution}[{extra}]"]
    quoted = " ".join(shlex.quote(r) for r in reqs)
    pip = f"uv pip install --python {shlex.quote(install.python)}" if install.installer == "uv" else f"{shlex.quote(install.python)} -m pip install"
    direct = install.direct_url or {}
    if (install.prefix / "pipx_metadata.json").is_file():
        return f"pipx inject {shlex.quote(install.distribution)} {quoted}"
    if (install.prefix / "uv-receipt.toml").is_file():
        source = direct_source(direct) if direct else install.distribution
        withs = " ".join(f"--with {shlex.quote(r)}" for r in reqs)
        return f"uv tool install --force {withs} {shlex.quote(source)}"
    dir_info = direct.get("dir_info")
    if isinstance(dir_info, dict) and dir_info.get("editable"):
        return f"{pip} -e {shlex.quote(f'{direct_source(direct)}[{extra}]')}"
    if direct:
        return f"{pip} {quoted}"
    return f"{pip} {shlex.quote(f'{install.distribution}[{extra}]')}"
