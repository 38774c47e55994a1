"""Modules loaded on first use.

icepool (the exact odds) takes about as long to import as Textual's own app module; a
fight opens, and the first screen shows, before any chance is asked for. The odds
modules name it through `lazy_module("icepool")`, which imports it when an attribute
is first read (the declare form's first chance, computed in a worker thread, or
`tracker roll`). Not importlib's LazyLoader: on Python 3.11 a second thread reading an
attribute while the first is still executing the module could see it half-made;
`importlib.import_module` holds the module's import lock, so the second thread waits.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class _LazyModule:
    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        return getattr(module, attr)


def lazy_module(name: str) -> Any:
    """A stand-in for module `name` that imports it when an attribute is first read."""
    return _LazyModule(name)
