"""Direct tests of rulesets.tables' TOML reading: which reader read a text (the flag a
save's loader acts on) and the refusal of values nested too deeply.

Why: `toml_tables` says whether `tomllib` read the text, and the save's loader holds
tomllib's answers (which the compiled reader refuses past about 80 levels) to the same
depth limit by that flag; a tables file nested past what Python can recurse through is
refused naming the file, not with a traceback. Expected values are worked from the
module's docstrings.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rulesets import tables
from rulesets.tables import parse_toml, toml_tables
from tracker.engine.errors import TrackerError


def test_the_compiled_reader_reads_plain_toml() -> None:
    assert tables._rtoml is not None  # a dependency of the project
    assert toml_tables('[sphere]\n18 = 134\nname = "x"\n') == ({"sphere": {"18": 134, "name": "x"}}, False)


def test_tomllib_reads_what_the_compiled_reader_refuses_and_says_so() -> None:
    # 100 levels of arrays: past the compiled reader's limit, within tomllib's.
    deep = "a = " + "[" * 100 + "]" * 100 + "\n"
    doc, by_tomllib = toml_tables(deep)
    assert by_tomllib is True
    depth, item = 0, doc["a"]
    while item:
        depth, item = depth + 1, item[0]
    assert depth == 99  # the innermost array is empty


def test_a_refusal_by_both_readers_is_tomllibs() -> None:
    with pytest.raises(ValueError, match="line 1"):
        toml_tables("a = = 1")


def test_values_nested_past_recursion_are_refused_naming_the_file() -> None:
    data = b"a = " + b"[" * 5000 + b"]" * 5000 + b"\n"
    with pytest.raises(TrackerError, match=r"^house\.toml: values nested too deeply$"):
        parse_toml(data, Path("house.toml"))
