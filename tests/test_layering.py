"""The engine, the rulesets and persistence never import Textual; the modules stand on
the floors of docs/contributing/design.md#layers, nothing imports upward, and no imports go round in a circle."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PURE = ["tracker.engine", "tracker.persistence", "tracker.reading", "tracker.play"]  # every module of these floors


def test_pure_packages_do_not_import_textual() -> None:
    code = (
        "import sys, pkgutil, importlib\n"
        f"for name in {PURE!r}:\n"
        "    package = importlib.import_module(name)\n"
        "    for m in pkgutil.walk_packages(package.__path__, name + '.'): importlib.import_module(m.name)\n"
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


# ----------------------------------------------------------------- floors and circles
# docs/contributing/design.md#layers: the floors are the folders. From the ground up: the
# engine, the rulesets, persistence, reading (what a role sees), play (what a seat does),
# the UI, the front ends (serve, web), and the command line (tracker/command/: the
# `tracker` command, its parser, completion, ...) with what stands beside it at the top
# of the package (`python -m tracker`, the contract suite). A module may import
# its own floor and the floors below it, never one above, and the imports between
# modules never go round in a circle. No module stands off its folder's floor (the
# contract suite a game's tests subclass, tracker.testing, drives a game as the declare
# form does and stands at the top with the command line).
#
# What counts as an import: every `import` and `from ... import` in the file, at the top,
# inside functions and under `if TYPE_CHECKING:` alike (an arrow in the house is an arrow,
# whenever it runs). `from P import name` is an arrow to the module `P.name` when there is
# one (Python imports a submodule without needing its package's other names, so a
# package's `__init__` re-exporting its submodules and those submodules importing their
# siblings through the package, `from tracker.engine import bounds`, is no circle), else
# to `P` itself: importing a name the package's `__init__` defines or re-exports is an
# arrow to that `__init__`, and would be a circle from inside the package.
# `import a.b.c` is an arrow to `a.b.c`.
TOP = tuple(sorted(f"tracker.{p.stem}" for p in (ROOT / "tracker").glob("*.py") if p.stem not in ("__init__", "compiled")))
FLOORS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("engine", ("tracker", "tracker.compiled", "tracker.engine")),  # tracker.compiled: what the package installs before anything else
    ("rulesets", ("rulesets",)),
    ("persistence", ("tracker.persistence",)),
    ("reading", ("tracker.reading",)),
    ("play", ("tracker.play",)),
    ("ui", ("tracker.ui",)),
    ("front ends", ("tracker.serve", "tracker.web")),
    ("command line", ("tracker.command", *TOP)),
)
PACKAGES = ("tracker", "rulesets")
ONLY_ITSELF = ("tracker",)  # the package's own `__init__` (its version), not its modules


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of ours that `name` imports (see the comment above FLOORS)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    arrows: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                targets.append(sub if sub in modules else base)
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]  # a name inside a module: the module
            if target and target != name:
                arrows.add(target)
    return arrows


def _floor(name: str) -> int:
    best, floor = -1, -1
    for level, (_, prefixes) in enumerate(FLOORS):
        for prefix in prefixes:
            within = name.startswith(prefix + ".") and prefix not in ONLY_ITSELF
            if (name == prefix or within) and len(prefix) > best:
                best, floor = len(prefix), level
    return floor


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))
    return found


def test_every_module_stands_on_a_floor() -> None:
    lost = sorted(name for name in _modules() if _floor(name) < 0)
    assert not lost, f"put these on a floor in FLOORS (tests/test_layering.py): {lost}"


def test_no_import_runs_up_a_floor() -> None:
    graph = _graph()
    assert len(graph) > 50 and sum(map(len, graph.values())) > 150  # the walk found the house
    upward = [
        f"{name} ({FLOORS[_floor(name)][0]}) imports {target} ({FLOORS[_floor(target)][0]})"
        for name, targets in sorted(graph.items())
        for target in sorted(targets)
        if _floor(target) > _floor(name)
    ]
    assert not upward, "\n".join(upward)


def test_no_circles_between_modules() -> None:
    circles = _circles(_graph())
    assert not circles, "\n".join(" <-> ".join(group) for group in circles)


def test_the_walk_sees_what_a_circle_is_made_of(tmp_path: Path) -> None:
    """The rules above, on a made-up house: an import inside a function and one under
    TYPE_CHECKING are arrows; a package reaching a sibling through its own name is not an
    arrow to the package; a name from the package's `__init__` is."""
    sources = {
        "p": ("p/__init__.py", "from p.a import A\n"),
        "p.a": ("p/a.py", "from p import b\nclass A: ...\n"),
        "p.b": ("p/b.py", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from q import Q\n"),
        "p.c": ("p/c.py", "from . import b\nfrom .a import A\n"),
        "q": ("q.py", "import os\nclass Q: ...\ndef f():\n    from p import A\n    import p.b\n"),
    }
    modules = {}
    for name, (rel, text) in sources.items():
        path = tmp_path / rel
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
        modules[name] = path
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert graph == {"p": {"p.a"}, "p.a": {"p.b"}, "p.b": {"q"}, "p.c": {"p.a", "p.b"}, "q": {"p", "p.b"}}
    assert _circles(graph) == [["p", "p.a", "p.b", "q"]]
    graph["q"] = {"p.b"}  # the function imports only the submodule
    assert _circles(graph) == [["p.b", "q"]]
    graph["p.b"] = set()
    assert _circles(graph) == []


def test_only_the_ui_and_above_name_textual_even_inside_a_function() -> None:
    """The floors below the UI never reach into Textual, not even by an import run later
    (the config file's key names and themes are the UI's: tracker.ui.settings)."""
    below_ui = [name for name in _modules() if _floor(name) < [n for n, _ in FLOORS].index("ui")]
    reaching = []
    for name in below_ui:
        path = _modules()[name]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                named = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                named = [node.module or ""]
            else:
                continue
            reaching += [f"{name}: {n}" for n in named if n == "textual" or n.startswith("textual.")]
    assert len(below_ui) > 60
    assert not reaching, reaching
