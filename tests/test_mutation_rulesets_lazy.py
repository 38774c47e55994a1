"""Direct tests of rulesets.lazy: `lazy_module(name)` stands in for module `name` and
imports it when an attribute is first read (module docstring), once: later reads go to
the module the first read imported."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rulesets.lazy import lazy_module

NAME = "lazy_probe_for_mutation"


@pytest.fixture
def probe(tmp_path: Path) -> Iterator[Path]:
    """A module of its own on the path, counting its imports in a file beside it."""
    (tmp_path / f"{NAME}.py").write_text(
        "from pathlib import Path\n"
        "_count = Path(__file__).with_name('imports.txt')\n"
        "_count.write_text(_count.read_text() + 'x' if _count.exists() else 'x')\n"
        "TOKEN = object()\n"
        "def double(n):\n"
        "    return 2 * n\n",
        encoding="utf-8",
    )
    sys.path.insert(0, str(tmp_path))
    sys.modules.pop(NAME, None)
    try:
        yield tmp_path / "imports.txt"
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop(NAME, None)


def test_the_module_is_imported_on_the_first_attribute_read(probe: Path) -> None:
    stand_in = lazy_module(NAME)
    assert not probe.exists()  # named, not yet imported
    assert NAME not in sys.modules
    assert stand_in.double(21) == 42
    assert probe.read_text() == "x"
    assert stand_in.TOKEN is sys.modules[NAME].TOKEN


def test_later_reads_use_the_module_first_imported(probe: Path) -> None:
    stand_in = lazy_module(NAME)
    first = stand_in.TOKEN
    sys.modules.pop(NAME)  # a second import would make the module (and TOKEN) again
    assert stand_in.TOKEN is first
    assert stand_in.double(3) == 6
    assert probe.read_text() == "x"


def test_a_missing_attribute_is_an_attribute_error(probe: Path) -> None:
    with pytest.raises(AttributeError):
        lazy_module(NAME).no_such_name  # noqa: B018
